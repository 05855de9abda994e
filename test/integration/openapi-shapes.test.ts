import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { callJson, createVerification, seedTenant } from "../helpers/api";

/*
 * The served document types every part of a Verification the spec describes, with the spec's
 * bounds: the contract checker (test/helpers/contract-fetch.ts) then holds every response of the
 * suite to them.
 */
describe("the OpenAPI document types the Verification to the spec", () => {
  it("location_match, condition (both shapes) and captures[].attestation are typed, with the spec's bounds", async () => {
    const doc = (await callJson("/v1/openapi.json")).body;
    const s = doc.components.schemas;
    const v = s.Verification.properties;
    expect(v.location_match.$ref).toBe("#/components/schemas/LocationMatch");
    expect(v.condition.$ref).toBe("#/components/schemas/Condition");
    expect(v.captures.items.properties.attestation.$ref).toBe("#/components/schemas/Attestation");
    expect(s.LocationMatch.properties.status.enum).toEqual(["verified", "no_match", "ungeocoded", "rejected"]);
    expect(s.LocationMatch.required).toEqual(expect.arrayContaining(["status", "expected_location", "observed_location", "expected_point", "observed_point", "distance_m"]));
    const [scored, unassessed] = s.Condition.anyOf ?? s.Condition.oneOf;
    expect(scored.properties.score).toMatchObject({ minimum: 0, maximum: 10 });
    expect(scored.properties.label.enum).toEqual(["good", "fair", "poor"]);
    expect(unassessed.properties.status.enum).toEqual(["not_assessed"]);
    expect(unassessed.required).toEqual(expect.arrayContaining(["status", "reason", "aspects"]));
    expect(s.Attestation.properties.verdict.enum).toEqual(["pass", "fail", "error"]);
    // The default sets as served, hosted_page's depth included (CONTRACT, fourth release).
    for (const name of ["Config", "LinkTemplate"]) {
      expect(s[name].properties.signals_default.description, name).toContain("(`hosted_page`: `screen`, `ai`, `reverse`, `depth`; `api`: `screen`, `ai`, `reverse`)");
    }

    const signals = s.Verdict.properties.signals.properties;
    const named = (schema: { $ref?: string }) => (schema.$ref ? s[schema.$ref.replace("#/components/schemas/", "")] : schema);
    const evaluated = (name: string) => named(signals[name].anyOf[0]).properties;
    for (const name of ["screen_detection", "ai_detection", "depth", "context_match"]) expect(evaluated(name).confidence, name).toMatchObject({ minimum: 0, maximum: 1 });
    expect(evaluated("reverse_search").match_count).toMatchObject({ minimum: 0 });
    expect(signals.ai_detection.anyOf[0].$ref).toBe("#/components/schemas/AiDetection");
    expect(s.AiDetection.required).toEqual(expect.arrayContaining(["label", "confidence", "method"]));
    expect(new RegExp(s.AiDetection.properties.method.pattern).test("provider:sightengine")).toBe(true);
    expect(new RegExp(s.AiDetection.properties.method.pattern).test("magic")).toBe(false);
    expect(s.Capability.properties.methods.items.pattern).toBe(s.AiDetection.properties.method.pattern);
    expect(v.narrative).toMatchObject({ maxLength: 2000 });
    expect(v.answers.additionalProperties.properties.value).toMatchObject({ minLength: 1, maxLength: 2000 });

    const ca = s.CaseAnalysis.properties;
    expect(ca.rubric_version).toMatchObject({ minimum: 1, maximum: 10 });
    for (const unit of [ca.overall_risk_score, ca.confidence, ca.consistency_level]) expect(unit).toMatchObject({ minimum: 0, maximum: 1 });
    expect(ca.uncertainty_areas).toMatchObject({ maxItems: 12, items: { minLength: 1, maxLength: 300 } });
    expect(ca.analysis).toMatchObject({ maxItems: 25 });
    expect(ca.text_analysis).toMatchObject({ minLength: 1, maxLength: 2000 });
    expect(ca.model).toMatchObject({ minLength: 1, maxLength: 200 });
    expect(ca.dimensions.properties.physical_plausibility.properties.evidence).toMatchObject({ minLength: 1, maxLength: 1000 });

    expect(s.Config.properties.webhook_url).toMatchObject({ format: "uri" });
    expect(s.Config.properties.notify_email).toMatchObject({ format: "email" });
  });

  it("the trial's capture_url is a URI and the capture-flow read's status is the status enum (issue 42, item 6)", async () => {
    const s = (await callJson("/v1/openapi.json")).body.components.schemas;
    expect(s.TrialStarted.properties.capture_url).toMatchObject({ type: "string", format: "uri" });
    expect(s.Verification.properties.capture_url).toMatchObject({ type: "string", format: "uri" });
    expect(s.CaptureFlowView.properties.status.enum).toEqual(["pending", "partially_captured", "completed", "expired", "failed", "abandoned"]);
    expect(s.CaptureFlowView.properties.status.enum).toEqual(s.Verification.properties.status.enum);
  });

  it("CaptureRequest admits exactly the two shapes the server takes, and none it refuses", async () => {
    // Docs probe of 2026-12-07: the schema had every field optional, so {image_key} alone or
    // {image_base64, image_sha256} validated against it and the server then refused them (400).
    const doc = (await callJson("/v1/openapi.json")).body;
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(doc, "doc");
    const admits = ajv.getSchema("doc#/components/schemas/CaptureRequest")!;
    const digest = "a".repeat(64);
    expect(admits({ image_base64: "AAAA" })).toBe(true);
    expect(admits({ image_key: "k", image_sha256: digest })).toBe(true);
    const refused = [{}, { image_key: "k" }, { image_base64: "AAAA", image_sha256: digest }, { image_base64: "AAAA", image_key: "k" }, { image_base64: "AAAA", image_key: "k", image_sha256: digest }];
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1 });
    for (const body of refused) {
      expect(admits(body), JSON.stringify(body)).toBe(false);
      const res = await callJson(`/v1/verifications/${v.id}/captures`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });
});
