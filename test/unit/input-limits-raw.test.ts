import { describe, expect, it } from "vitest";
import { MintApiKeySchema } from "../../src/schemas/api-keys";
import { PublishLinkTemplateSchema } from "../../src/schemas/link-templates";
import { TenantSettingsPatchSchema } from "../../src/schemas/tenant-settings";
import { TrialStartSchema } from "../../src/schemas/trial";
import { CreateVerificationSchema } from "../../src/schemas/verification-create";
import { FinalizeRequestSchema } from "../../src/schemas/finalize";
import { ReviewRequestSchema } from "../../src/schemas/review";

/*
 * A documented limit (docs/api.md "Input limits", the OpenAPI document's maxLength) bounds the value
 * as sent: padding it with spaces does not get a longer value past it, though what is stored is
 * trimmed. A client validating against the document and the service agree on every body.
 */

const steps = [{ key: "front", type: "image", description: "Front", min: 1, max: 1 }];
const padded = (text: string, length: number) => text + " ".repeat(length - text.length);

describe("input limits count the value as sent", () => {
  it("refuses a value over its limit made of trailing spaces, and trims one within it", () => {
    const cases: Array<[string, (value: string) => { success: boolean; data?: unknown }, number]> = [
      ["template name", (name) => PublishLinkTemplateSchema.safeParse({ slug: "roof", name, steps }), 100],
      ["api key name", (name) => MintApiKeySchema.safeParse({ scope: "full", name }), 100],
      ["display name", (display_name) => TenantSettingsPatchSchema.safeParse({ display_name }), 100],
      ["trial source", (source) => TrialStartSchema.safeParse({ source }), 100],
      ["expected_location", (expected_location) => CreateVerificationSchema.safeParse({ steps, expected_location }), 500],
    ];
    for (const [what, parse, limit] of cases) {
      expect(parse(padded("Acme", limit + 1)).success, `${what}: ${limit + 1} characters`).toBe(false);
      expect(parse(padded("Acme", limit)).success, `${what}: ${limit} characters`).toBe(true);
      expect(parse("   ").success, `${what}: only spaces`).toBe(false);
    }
    const trimmed = MintApiKeySchema.safeParse({ scope: "full", name: "  Back-end  " });
    expect(trimmed.data?.name).toBe("Back-end");
  });
});

// docs/api.md "Input limits": a limit counts code points, as the OpenAPI document's maxLength does
// (probe of 2026-12-04: the docs said UTF-16 units, which a narrative of emoji contradicted).
describe("input limits count code points, as the document's maxLength does", () => {
  const emoji = (n: number) => "😀".repeat(n);
  it("a narrative, a review note and a metadata value of emoji are bounded by their number, not their UTF-16 length", () => {
    expect(FinalizeRequestSchema.safeParse({ narrative: emoji(2000) }).success).toBe(true);
    expect(FinalizeRequestSchema.safeParse({ narrative: emoji(2001) }).success).toBe(false);
    expect(ReviewRequestSchema.safeParse({ decision: "approved", note: emoji(2000) }).success).toBe(true);
    expect(ReviewRequestSchema.safeParse({ decision: "approved", note: emoji(2001) }).success).toBe(false);
    expect(CreateVerificationSchema.safeParse({ steps, metadata: { claim: emoji(500) } }).success).toBe(true);
    expect(CreateVerificationSchema.safeParse({ steps, metadata: { claim: emoji(501) } }).success).toBe(false);
  });
});
