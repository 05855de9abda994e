import { describe, expect, it } from "vitest";
import { mailboxOf } from "../../src/domain/accounts/users";

describe("mailboxOf: the mailbox an address reaches, for the per-address mail caps", () => {
  it("drops a +tag and case, keeps everything else as given", () => {
    expect(mailboxOf(" Victim+news@Example.COM ")).toBe("victim@example.com");
    expect(mailboxOf("victim+a+b@example.com")).toBe("victim@example.com");
    expect(mailboxOf("first.last@example.com")).toBe("first.last@example.com");
    expect(mailboxOf("+only@example.com")).toBe("+only@example.com");
  });

  it("drops the dots of a Gmail local part, which Gmail ignores, and googlemail.com is gmail.com", () => {
    expect(mailboxOf("v.i.c.t.i.m+x@gmail.com")).toBe("victim@gmail.com");
    expect(mailboxOf("Victim@GoogleMail.com")).toBe("victim@gmail.com");
  });

  it("leaves a string without a local part alone", () => {
    expect(mailboxOf("@example.com")).toBe("@example.com");
    expect(mailboxOf("no-at-sign")).toBe("no-at-sign");
  });
});
