import { describe, expect, it } from "vitest";
import apiDocs from "../../docs/api.md?raw";
import { inputLimits, limitsTable, tableIn } from "../../scripts/lib/input-limits";
import { callJson } from "../helpers/api";

/*
 * docs/api.md lists every upper bound the request schemas enforce (issue 42, item 6): derived from the
 * served OpenAPI document (generated from the zod schemas that validate), so a limit added, changed or
 * dropped in a schema fails here until `npm run gen:client` rewrites the table.
 */
describe("docs/api.md, Input limits", () => {
  it("lists exactly the bounds the served document enforces on request bodies and parameters", async () => {
    const res = await callJson("/v1/openapi.json");
    expect(res.status).toBe(200);
    const limits = inputLimits(res.body);
    const byField = new Map(limits.map((l) => [`${l.field} ${l.kind}`, l.values]));
    // The derivation reads what the spec's limits table names (not an empty walk).
    expect(byField.get("narrative maxLength")).toEqual([2000]);
    expect(byField.get("value maxLength")).toEqual([2000]);
    expect(byField.get("steps[].key maxLength")).toEqual([64]);
    expect(byField.get("steps[].description maxLength")).toEqual([500]);
    expect(byField.get("steps[].max_size_bytes maximum")).toEqual([26214400]);
    expect(byField.get("steps[].validation.max_length maximum")).toEqual([2000]);
    expect(byField.get("max_captures maximum")).toEqual([20]);
    expect(byField.get("condition_aspects maxItems")).toEqual([6]);
    expect(byField.get("condition_aspects[] maxLength")).toEqual([40]);
    expect(byField.get("context.kind maxLength")).toEqual([64]);
    expect(byField.get("context.summary maxLength")).toEqual([500]);
    expect(byField.get("query:limit maximum")).toEqual([100]);
    expect(byField.get("header:idempotency-key maxLength")).toEqual([255]);

    const documented = tableIn(apiDocs);
    expect(documented, "docs/api.md lacks the input-limits markers").not.toBeNull();
    expect(documented).toBe(limitsTable(limits));
  });
});
