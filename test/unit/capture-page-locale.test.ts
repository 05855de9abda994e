import { describe, expect, it } from "vitest";
import { CATALOGS, negotiateLocale } from "../../src/capture-page/locale";
import { en } from "../../src/capture-page/strings/en";
import { answerProblem, validateAnswer } from "../../src/model/verification/answers";

describe("negotiateLocale", () => {
  it("picks the best supported language by quality, matching regional tags to their language", () => {
    expect(negotiateLocale("es-MX,es;q=0.9,en;q=0.8")).toBe("es");
    expect(negotiateLocale("fr-FR, en;q=0.5, es;q=0.7")).toBe("es");
    expect(negotiateLocale("de-DE,de;q=0.9")).toBe("en");
    expect(negotiateLocale("es;q=0, en")).toBe("en");
    expect(negotiateLocale(undefined)).toBe("en");
    expect(negotiateLocale("*")).toBe("en");
  });

  it("every catalog has exactly the reference keys and the same placeholders", () => {
    const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const [locale, strings] of Object.entries(CATALOGS)) {
      expect(Object.keys(strings).sort(), locale).toEqual(Object.keys(en).sort());
      for (const key of Object.keys(en) as Array<keyof typeof en>) {
        expect(placeholders(strings[key]), `${locale}.${key}`).toEqual(placeholders(en[key]));
      }
    }
  });
});

describe("answerProblem (shared by the server and the capture page)", () => {
  const step = { validation: { min_length: 3, max_length: 6, format: "alphanumeric_id" as const } };

  it("names the rule an answer breaks", () => {
    expect(answerProblem(step, "   ")).toEqual({ code: "blank" });
    expect(answerProblem(step, "AB")).toEqual({ code: "too_short", limit: 3 });
    expect(answerProblem(step, "ABCDEFG")).toEqual({ code: "too_long", limit: 6 });
    expect(answerProblem(step, "AB 12")).toEqual({ code: "alphanumeric_id" });
    expect(answerProblem({ validation: { max_length: 9, format: "numeric_id" } }, "12a")).toEqual({ code: "numeric_id" });
    expect(answerProblem(step, "AB-12")).toBeNull();
  });

  it("keeps the server's English messages", () => {
    const text = { key: "t", type: "text" as const, required: true, ...step };
    expect(validateAnswer(text, "AB 12")).toBe("Use letters, digits and hyphens only.");
    expect(validateAnswer(text, "AB")).toBe("The answer must be at least 3 characters (an emoji counts as 2).");
  });

  it("counts UTF-16 code units, as the browser's maxlength does and docs/api.md says", () => {
    const free = { validation: { max_length: 6, format: "free_text" as const } };
    expect(answerProblem(free, "😀😀😀")).toBeNull(); // 3 emoji, 6 units
    expect(answerProblem(free, "😀😀😀a")).toEqual({ code: "too_long", limit: 6 });
  });
});
