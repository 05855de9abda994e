import { decodeJwt, decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { call, callJson, createVerification, seedTenant, withVision } from "../helpers/api";
import { inlineCapture, pollVerification } from "../helpers/capture";
import { assessableJpeg, publishedJwks, verifyCertificate } from "../helpers/certificates";
import { waitFor } from "../helpers/wait";
import { dashboard, signIn } from "../helpers/session";
import { receiver } from "../helpers/webhooks";

/*
 * A certificate is handed to anyone: it must hold nothing private. A verification with every
 * private field filled (metadata, context, expectations, notify_email, webhook_url, step texts,
 * answers, a device location, a review note, a narrative) is certified, and the certificate (header
 * and payload, and the JSON and page a link serves) is scanned for every one of those values.
 */

describe("nothing private in a certificate", () => {
  it("scans a certificate of a fully populated verification against every private value", async () => {
    const t = await seedTenant("Private Insurance");
    const hook = receiver();
    const PRIVATE = {
      metadataValue: "CLM-PRIVATE-7731",
      holder: "Jane Q. Privateperson",
      contextKind: "motor_claim_private",
      contextSummary: "Rear bumper damage reported by the holder on the ring road",
      contextAttribute: "POLICY-ATTR-SECRET-9",
      notifyEmail: "jane.private.7731@example.test",
      webhookUrl: hook.url,
      expectedLocation: "48.858370,2.294481",
      expectedObject: "a crimson tandem bicycle with a bent rim",
      conditionAspect: "rim-bend-xq",
      stepDescription: "Photograph the crimson tandem from the left",
      questionText: "Policy number as printed on the card",
      answer: "POL-SECRET-4242",
      lat: "12.345678",
      lng: "-98.765432",
      reviewNote: "Reviewer private note 5521 about the holder",
      narrative: "Narrative private text 9931: the holder hit a bollard",
    };
    const v = await createVerification(t.key, {
      steps: [
        { key: "tandem", type: "image", description: PRIVATE.stepDescription, min: 1, max: 1 },
        { key: "policy", type: "text", description: PRIVATE.questionText, required: true, validation: { max_length: 20, format: "alphanumeric_id" } },
      ],
      signals_required: ["screen", "context"],
      metadata: { claim_id: PRIVATE.metadataValue, holder: PRIVATE.holder },
      context: { kind: PRIVATE.contextKind, summary: PRIVATE.contextSummary, attributes: { policy: PRIVATE.contextAttribute } },
      notify_email: PRIVATE.notifyEmail,
      webhook_url: PRIVATE.webhookUrl,
      expected_location: PRIVATE.expectedLocation,
      expected_object: PRIVATE.expectedObject,
      condition_aspects: [PRIVATE.conditionAspect],
      // context, expected_object and condition_aspects need a vision provider at creation (GET /v1/capabilities).
    }, undefined, { env: withVision() });
    expect((await inlineCapture(v.id, { step_key: "tandem", location: { lat: Number(PRIVATE.lat), lng: Number(PRIVATE.lng), accuracy_m: 7 } }, assessableJpeg())).status).toBe(201);
    expect((await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "policy", value: PRIVATE.answer } })).status).toBe(200);
    const done = await pollVerification(t.key, v.id, (x) => x?.verdict !== undefined, 40_000);
    expect(done.status).toBe("completed");
    const operator = await signIn(t.id);
    expect((await callJson(`/v1/verifications/${v.id}/review`, { body: { decision: "needs_more", note: PRIVATE.reviewNote }, headers: dashboard(operator.cookie) })).status).toBe(200);
    expect((await callJson(`/v1/verifications/${v.id}/finalize`, { body: { narrative: PRIVATE.narrative }, headers: dashboard(operator.cookie) })).status).toBe(200);

    // The verification holds every value (so the scan below can fail), and its seal covers the answer.
    const full = (await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body;
    const fullText = JSON.stringify(full);
    for (const [name, value] of Object.entries(PRIVATE)) {
      if (name === "lat" || name === "lng") continue; // the device location is on the Capture resource
      expect(fullText, name).toContain(value);
    }

    // Whichever sequence it got (the consumer signs as the events arrive), the certificate of the finalized state.
    const cert = await waitFor(async () => {
      const res = await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key });
      return res.body.payload?.verification.finalized_at ? res.body : undefined;
    }, { what: "the certificate of the finalized state" });
    const link = await callJson(`/v1/verifications/${v.id}/certificate-link`, { key: t.key, method: "POST" });
    const page = await call(new URL(link.body.url).pathname, { headers: { Accept: "text/html" } });
    const surfaces = {
      header: JSON.stringify(decodeProtectedHeader(cert.certificate)),
      payload: JSON.stringify(decodeJwt(cert.certificate)),
      json: JSON.stringify(cert),
      page: await page.text(),
    };
    for (const [surface, said] of Object.entries(surfaces)) {
      for (const [name, value] of Object.entries(PRIVATE)) expect(said, `${name} in the certificate's ${surface}`).not.toContain(value);
      // The one public name that begins with a private one: the context signal's key in verdict.signals.
      const text = said.replaceAll('"context_match"', '"<signal>"');
      // Names of private fields do not appear either (allow-listed payload, nothing passed through).
      for (const field of ["metadata", "context", "notify_email", "webhook_url", "answers", "location", "narrative", "note", "expected_", "condition", "config", "capture_url", "image_url"]) {
        expect(text, `${field} in the certificate's ${surface}`).not.toContain(`"${field}`);
      }
    }

    // What it does say, exactly (every key at every level).
    const { payload } = await verifyCertificate(cert.certificate, await publishedJwks());
    expect(Object.keys(payload).sort()).toEqual(["exp", "iat", "iss", "schema_version", "sequence", "verification"]);
    const certified = payload.verification as Record<string, any>;
    expect(Object.keys(certified).sort()).toEqual(["captures", "completed_at", "created_at", "finalized_at", "id", "record_seal", "review", "status", "tenant", "verdict"]);
    expect(Object.keys(certified.review).sort()).toEqual(["decision", "reviewed_at"]);
    expect(certified.record_seal).toEqual({ algorithm: "sha256", hash: full.record_seal.hash });
    expect(Object.keys(certified.captures[0]).sort()).toEqual(["id", "kind", "received_at", "sha256", "step_key"]);
    expect(Object.keys(certified.verdict).every((k) => ["label", "reason_code", "assessment", "signals"].includes(k))).toBe(true);
    expect(Object.keys(certified.tenant).sort()).toEqual(["display_name", "id"]);
    // Each required signal: its status and what decided it, never its value, confidence or evidence.
    // (The analysis consumer here has no vision provider, so the context cross-check says it was not assessed.)
    expect(certified.verdict.signals).toEqual({ screen_detection: { status: "assessed", method: "pixels" }, context_match: { status: "not_assessed" } });
  });
});
