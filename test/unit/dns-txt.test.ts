import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { dohResolver, txtValue } from "../../src/providers/dns";
import { breakResolver, publishTxt, unpublish } from "../helpers/dns";

/* TXT lookups over DNS over HTTPS (a tenant proving a domain): the same resolver as the webhook guard. */

describe("TXT records over DNS over HTTPS", () => {
  it("reads a record's text as resolvers write it: quoted strings (joined, unescaped) or bare", () => {
    expect(txtValue('"verification-service-domain=abc"')).toBe("verification-service-domain=abc");
    expect(txtValue('"verification-service-domain=" "abc"')).toBe("verification-service-domain=abc");
    expect(txtValue('"say \\"hi\\" \\\\ bye"')).toBe('say "hi" \\ bye');
    expect(txtValue("v=spf1 -all")).toBe("v=spf1 -all");
  });

  it("asks the resolver for TXT: every record, none for a name without, and a failure throws (never an empty answer)", async () => {
    const doh = dohResolver({ url: `${env.FAKES_URL}/doh` });
    const name = `_verification-service.txt-${Date.now().toString(36)}.example`;
    await publishTxt(name, ["v=spf1 -all", `verification-service-domain=${"x".repeat(43)}`]);
    expect(await doh.txt(name)).toEqual(["v=spf1 -all", `verification-service-domain=${"x".repeat(43)}`]);
    await unpublish(name);
    expect(await doh.txt(name)).toEqual([]);
    expect(await doh.txt("gone.nxdomain.test")).toEqual([]);
    await breakResolver(name);
    await expect(doh.txt(name)).rejects.toThrow(/500/);
    await unpublish(name);
  });
});
