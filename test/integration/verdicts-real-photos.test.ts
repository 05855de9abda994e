import { beforeAll, describe, expect, it } from "vitest";
import { callJson, seedTenant, type TestTenant } from "../helpers/api";
import { dashboard, signIn } from "../helpers/session";
import { captureInline, hasVerdict, pollVerification } from "../helpers/capture";
import { preparedPhoto } from "../helpers/photos";

/*
 * What a fresh deployment (`npm start`: no vision provider, no web search) answers with the default
 * signals, on real camera photographs from a Debian package (mate-backgrounds, made by
 * scripts/real-photos.ts; never committed), through the real queue and the analysis Worker. The full
 * set of 101 photographs is measured by `npm run eval:signals` (docs/signals.md, "Evaluation").
 */

const GENUINE = ["dune", "garden", "ladybird", "storm", "twowings"];
const COPIED = ["dune", "storm", "garden"];

/** The photographs, fetched before the tests: on a clean checkout each is made on first request, after whatever other files asked for first. */
const photos = new Map<string, Uint8Array>();
const PREPARE_MS = 240_000;
beforeAll(async () => {
  for (const name of [...GENUINE.map((p) => `camera-${p}.jpg`), ...COPIED.map((p) => `camera-${p}-copy.jpg`)]) photos.set(name, await preparedPhoto(name));
}, PREPARE_MS);

/**
 * A verification with the defaults (creation names no signals), one live photo, its verdict. The
 * photographs are files posted by a client of the capture API, so the verification says so
 * (`capture_channel: "api"`): on the hosted page's default set a photo posted without the capture
 * page's record reads depth not assessed (test/integration/capture-integrity.test.ts).
 */
async function verdictOf(t: TestTenant, photo: string) {
  const created = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1, capture_channel: "api" } });
  expect(created.status).toBe(201);
  expect(created.body.config).toMatchObject({ signals_required: ["screen", "ai", "reverse"], signals_default: { left_out: [] } });
  const bytes = photos.get(photo);
  if (!bytes) throw new Error(`${photo} is not among the photographs fetched before the tests`);
  await captureInline(created.body.id, bytes);
  return (await pollVerification(t.key, created.body.id, hasVerdict, 60_000)).verdict;
}

describe("a fresh deployment's verdict with the default signals, on real photographs", () => {
  it("a genuine photograph reads verified; the same photograph reused later reads suspicious with reverse_search_match", async () => {
    const t = await seedTenant();
    for (const photo of GENUINE) {
      const verdict = await verdictOf(t, `camera-${photo}.jpg`);
      expect(verdict, photo).toMatchObject({ label: "verified", assessment: "complete", not_assessed: [] });
      expect(verdict.reason_code, photo).toBeUndefined();
      expect(verdict.signals.reverse_search, photo).toEqual({ found_online: false, match_count: 0, sources: ["service_history"] });
      expect(verdict.signals.screen_detection.screen_detected, photo).toBe(false);
      expect(verdict.score, photo).toBeGreaterThan(0);
    }
    // Re-saved smaller at a lower quality, sent to a later verification of the same tenant.
    for (const photo of ["dune", "storm"]) {
      const verdict = await verdictOf(t, `camera-${photo}-copy.jpg`);
      expect(verdict, photo).toMatchObject({ label: "suspicious", reason_code: "reverse_search_match", assessment: "complete" });
      expect(verdict.signals.reverse_search, photo).toEqual({ found_online: false, match_count: 1, sources: ["service_history"] });
    }
  });

  it("another tenant's history is not searched unless both opted in to the shared reuse index", async () => {
    const [first, second] = [await seedTenant(), await seedTenant()];
    expect((await verdictOf(first, "camera-garden.jpg")).label).toBe("verified");
    // The same photograph at another tenant: not seen there.
    expect(await verdictOf(second, "camera-garden-copy.jpg")).toMatchObject({ label: "verified", signals: { reverse_search: { match_count: 0, sources: ["service_history"] } } });
    for (const tenant of [first, second]) {
      const { cookie } = await signIn(tenant.id);
      expect((await callJson("/v1/tenant/settings", { method: "PATCH", body: { share_reuse_index: true }, headers: dashboard(cookie) })).status).toBe(200);
    }
    const shared = await verdictOf(second, "camera-garden-copy.jpg");
    expect(shared).toMatchObject({ label: "suspicious", reason_code: "reverse_search_match" });
    // Both of the earlier copies: the first tenant's original and the second tenant's own copy.
    expect(shared.signals.reverse_search).toEqual({ found_online: false, match_count: 2, sources: ["service_history", "shared_history"] });
  });
});
