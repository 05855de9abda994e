import { describe, expect, it } from "vitest";
import { createClient, type ReceivedWebhook, type VerificationClient } from "../../clients/typescript/src/index";
import { createRoofClaim } from "../../clients/typescript/examples/create-verification";
import { completedClaimsSince } from "../../clients/typescript/examples/list-verifications";
import { waitForVerdict } from "../../clients/typescript/examples/wait-for-verdict";
import { handleWebhook } from "../../clients/typescript/examples/webhook-receiver";
import { callJson, seedTenant, BASE } from "../helpers/api";
import { captureInline } from "../helpers/capture";
import { contractFetch } from "../helpers/contract-fetch";
import { encodeJpeg, naturalScene } from "../helpers/synth";
import { waitFor } from "../helpers/wait";
import { received, receiver, sessionHeaders } from "../helpers/webhooks";

// The examples of clients/typescript/README.md, run against the Worker. The client's fetch is the
// suite's checked one, so every answer it parses is also checked against the served document.

function clientFor(key: string, seen: string[] = []): VerificationClient {
  return createClient({
    baseUrl: BASE,
    apiKey: key,
    fetch: (request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}${new URL(request.url).search}`);
      return contractFetch(request);
    },
  });
}

/** What the claimant does on the capture page: one photo of the roof, the policy number, submit. */
async function claimantCompletes(id: string, seed: number): Promise<void> {
  await captureInline(id, encodeJpeg(naturalScene(320, 256, seed), 90), { step_key: "roof" });
  const answered = await callJson(`/v1/verifications/${id}/answers`, { body: { step_key: "policy", value: `POL${seed}` } });
  expect(answered.status).toBe(200);
  expect((await callJson(`/v1/verifications/${id}/submit`, { method: "POST" })).status).toBe(200);
}

describe("TypeScript client examples", () => {
  it("create (idempotent), wait for the verdict, list with pagination, verify the webhook", async () => {
    const t = await seedTenant();
    const since = new Date(Date.now() - 1_000);
    const requests: string[] = [];
    const client = clientFor(t.key, requests);
    const hooks = receiver();

    const first = await createRoofClaim(client, "CLM-1", hooks.url);
    expect(first.status).toBe("pending");
    expect(first.capture_url).toBe(`${BASE}/c/${first.id}`);
    expect(first.config.steps.map((s) => s.key)).toEqual(["roof", "policy"]);
    expect((await createRoofClaim(client, "CLM-1", hooks.url)).id).toBe(first.id);
    const second = await createRoofClaim(client, "CLM-2", hooks.url);
    const pending = await createRoofClaim(client, "CLM-3", hooks.url);

    await claimantCompletes(first.id, 301);
    const outcome = await waitForVerdict(client, first.id, 30_000);
    expect(outcome).toMatchObject({ status: "completed", label: expect.stringMatching(/^(verified|suspicious|failed)$/), score: expect.any(Number) });
    await claimantCompletes(second.id, 302);
    expect((await waitForVerdict(client, second.id, 30_000)).status).toBe("completed");

    // One per page: three requests follow next_cursor; the pending claim is filtered out.
    requests.length = 0;
    expect(await completedClaimsSince(client, since, 1)).toEqual(["CLM-2", "CLM-1"]);
    const pages = requests.filter((r) => r.startsWith("GET /v1/verifications?"));
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(pages.slice(1).every((r) => r.includes("cursor="))).toBe(true);
    expect(pending.status).toBe("pending");

    // The completed webhook, as the receiver got it, through the example handler.
    const secret = (await callJson("/v1/webhook-secret", { headers: await sessionHeaders(t.id) })).body.secret as string;
    const completed = await waitFor(async () => {
      const hits = await received(hooks.id);
      return hits.find((h) => JSON.parse(h.body).type === "verification.completed" && JSON.parse(h.body).data.object.id === first.id);
    }, { what: "the verification.completed webhook" });
    const handled: ReceivedWebhook[] = [];
    const deliver = (body: string, key = secret, headers = completed.headers) =>
      handleWebhook(new Request(hooks.url, { method: "POST", headers, body }), key, async (event) => {
        handled.push(event);
      });

    const ok = await deliver(completed.body);
    expect(ok.status).toBe(204);
    expect(handled).toHaveLength(1);
    const event = handled[0]!;
    expect(event.id).toBe(completed.headers["webhook-id"]);
    if (event.type === "webhook.test") throw new Error("expected the verification's event");
    expect(event.data.object.verdict?.label).toBe(outcome.label);
    expect(event.data.object.config.metadata).toEqual({ claim_id: "CLM-1" });

    expect((await deliver(completed.body.replace('"CLM-1"', '"CLM-9"'))).status).toBe(400);
    expect((await deliver(completed.body, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).status).toBe(400);
    expect(handled).toHaveLength(1);

    // The console's test send verifies too, typed as what it is (docs probe of 2026-12-07: the client
    // typed every event as a verification's, and `event.type === "webhook.test"` did not compile).
    const sent = await callJson("/v1/webhook-test", { headers: await sessionHeaders(t.id), body: { url: hooks.url } });
    expect(sent.status).toBe(200);
    const test = await waitFor(async () => (await received(hooks.id)).find((h) => JSON.parse(h.body).type === "webhook.test"), { what: "the webhook.test delivery" });
    expect((await deliver(test.body, secret, test.headers)).status).toBe(204);
    const testEvent = handled[1]!;
    if (testEvent.type !== "webhook.test") throw new Error(`expected webhook.test, got ${testEvent.type}`);
    expect(testEvent.data.object).toEqual({ tenant_id: t.id, message: expect.any(String) });
  });

  it("error answers become ApiError with the standard code and fields", async () => {
    const t = await seedTenant();
    const client = clientFor(t.key);
    const refused = await client.createVerification({ max_captures: 0 }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ name: "ApiError", status: 400, code: "invalid_request", fields: { max_captures: expect.any(String) } });
    const missing = await client.getVerification("vfy_01M82BB9AB26PZRT0D1PRV3Y8W").catch((err: unknown) => err);
    expect(missing).toMatchObject({ name: "ApiError", status: 404, code: "not_found" });
  });
});
