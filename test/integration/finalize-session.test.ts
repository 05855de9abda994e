import { describe, expect, it } from "vitest";
import { callJson, createVerification, seedTenant } from "../helpers/api";
import { inlineCapture } from "../helpers/capture";
import { dashboard, signIn } from "../helpers/session";
import { persisted } from "../helpers/snapshot";

describe("finalize from the dashboard session", () => {
  it("accepts a session and scopes by tenant", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const v = await createVerification(t.key, { max_captures: 2 });
    await inlineCapture(v.id);
    await callJson(`/v1/verifications/${v.id}/progress`, { body: { schema_version: 1, kind: "step_reached", step: "capturing", elapsed_ms: 10 } });
    const path = `/v1/verifications/${v.id}/finalize`;
    const narrative = "The hail storm on Tuesday dented the roof; the photos show the north side.";

    const other = await seedTenant("Other");
    const stranger = await signIn(other.id);
    const foreign = await callJson(path, { body: { narrative }, headers: dashboard(stranger.cookie) });
    expect(foreign.status).toBe(404);
    expect((await persisted(v.id)).row.narrative).toBeNull();

    const ok = await callJson(path, { body: { narrative }, headers: dashboard(cookie) });
    expect(ok.status).toBe(200);
    expect(ok.body.narrative).toBe(narrative);
    expect(ok.body.status).toBe("partially_captured");
    expect(ok.body.progress).toMatchObject({ kind: "step_reached", step: "capturing" });

    const again = await callJson(path, { body: { narrative }, headers: dashboard(cookie) });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("already_finalized");

    const timeline = await callJson(`/v1/verifications/${v.id}/events`, { headers: { Cookie: cookie } });
    const caseEvent = timeline.body.events.find((e: any) => e.event_name === "verification.case.completed");
    expect(caseEvent.payload).toEqual({ narrative });
  });
});
