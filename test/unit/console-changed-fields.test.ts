import { describe, expect, it } from "vitest";
import { changedFields } from "../../client/console/lib/changes";

/* The console's edit forms send a PATCH of what the operator changed (client/console/lib/changes.ts). */

describe("changedFields", () => {
  const opened = { name: "Roof", signals_required: ["screen", "ai"], steps: [{ type: "image", key: "a", max: 1 }], webhook_url: "https://example.com/hook" as string | null, seal: true };

  it("is empty for an unchanged form, arrays and objects compared by value", () => {
    expect(changedFields(opened, structuredClone(opened))).toEqual({});
  });

  it("holds only the fields that changed, a cleared one as null", () => {
    expect(changedFields(opened, { ...structuredClone(opened), name: "Roof, renamed" })).toEqual({ name: "Roof, renamed" });
    expect(changedFields(opened, { ...opened, steps: [{ type: "image", key: "a", max: 2 }], webhook_url: null })).toEqual({ steps: [{ type: "image", key: "a", max: 2 }], webhook_url: null });
    expect(changedFields(opened, { ...opened, signals_required: ["ai", "screen"] })).toEqual({ signals_required: ["ai", "screen"] });
  });
});
