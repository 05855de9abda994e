import { z } from "zod";
import { describe, expect, it } from "vitest";
import { zodFields } from "../../src/lib/validation";
import { CaptureIntegrityRequestSchema } from "../../src/schemas/capture-integrity";

/*
 * A 400's `fields` are read beside form fields (the console shows them under its inputs) as well as by
 * developers: zod's default size messages are put in plain words; a schema's own message is kept.
 */

const fieldsOf = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  if (result.success) throw new Error("expected a failure");
  return { ...zodFields(result.error) };
};

describe("validation messages", () => {
  it("says sizes in plain words, for strings, lists and numbers", () => {
    const schema = z.object({
      name: z.string().min(1),
      code: z.string().min(3).max(5),
      note: z.string().max(1),
      tags: z.array(z.string()).min(1),
      more: z.array(z.string()).max(2),
      max: z.int().min(1),
      ratio: z.number().gt(0),
      limit: z.int().max(20),
    });
    expect(fieldsOf(schema, { name: "", code: "ab", note: "xy", tags: [], more: ["a", "b", "c"], max: 0, ratio: 0, limit: 21 })).toEqual({
      name: "Must not be empty.",
      code: "Use at least 3 characters.",
      note: "Use at most 1 character.",
      tags: "Give at least one.",
      more: "Give at most 2.",
      max: "Must be at least 1.",
      ratio: "Must be more than 0.",
      limit: "Must be at most 20.",
    });
    expect(fieldsOf(schema, { name: "a", code: "abcdef", note: "", tags: ["a"], more: [], max: 1, ratio: 1, limit: 1 })).toEqual({ code: "Use at most 5 characters." });
  });

  it("names a whole number's own bounds beyond the safe-integer range, and asks for a whole number where a fraction came", () => {
    // Probe of 2026-12-07: `max_captures: 1e16` was told "Must be at most 9007199254740991." (zod's
    // safe-integer check comes first), and `1.5` got zod's "expected int, received number".
    const schema = z.object({ count: z.int().min(1).max(20), seconds: z.int().min(1) });
    expect(fieldsOf(schema, { count: 1e16, seconds: -1e16 })).toEqual({ count: "Must be at most 20.", seconds: "Must be at least 1." });
    expect(fieldsOf(schema, { count: 1.5, seconds: 1 })).toEqual({ count: "Must be a whole number." });
    // A field left out is "Required.", not zod's "expected string, received undefined".
    expect(fieldsOf(z.object({ name: z.string(), count: z.int() }), {})).toEqual({ name: "Required.", count: "Required." });
    // With no bound of its own, the safe-integer range is the bound to name.
    expect(fieldsOf(z.object({ n: z.int() }), { n: 1e16 })).toEqual({ n: "Must be at most 9007199254740991." });
  });

  it("words a broken record against the version it carries, never against another version of the union", () => {
    // Probe of 2026-12-05: a version 2 record missing its parts was told "expected 1" and asked for version 1's `burst`.
    const fields = fieldsOf(CaptureIntegrityRequestSchema, { schema_version: 2 });
    expect(Object.keys(fields).sort()).toEqual(["device", "frames", "nonce", "patches", "preview"]);
    expect(fieldsOf(CaptureIntegrityRequestSchema, { schema_version: 1 })).toHaveProperty("burst");
    // A version neither option carries is explained by the closest option, its version named.
    expect(fieldsOf(CaptureIntegrityRequestSchema, { schema_version: 3 })).toHaveProperty("schema_version");
  });

  it("keeps a schema's own message", () => {
    expect(fieldsOf(z.object({ slug: z.string().min(1, "1..64 lowercase letters.") }), { slug: "" })).toEqual({ slug: "1..64 lowercase letters." });
  });
});
