import { and, asc, eq, gt, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenants, verifications } from "../../db/schema";
import { loadRecords } from "../../db/verifications";
import { verificationObject } from "../../durable-objects/verification-client";
import { eachLimited } from "../../lib/concurrency";
import { purgeVerification } from "../../storage/evidence";
import { redactSettledInBulk } from "../verification/redaction";
import { isSettled } from "../../model/verification/redaction";
import { enqueueMaintenanceJobs, type MaintenanceJob } from "../../events/maintenance-jobs";

/*
 * Tenant retention: every day, each tenant with `retention_days` has its verifications created more
 * than that many days ago redacted. Nothing here ever holds more than one page: the cron pages
 * through the tenants, each tenant is a chain of `retention_sweep` jobs (one page of due ids, then
 * the next), and each page fans out into `redact_verifications` jobs: a batch write for the
 * verifications that are long over, their Durable Objects (like `POST /redact`) for the rest.
 */

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Tenants read per query by the cron. */
export const TENANT_PAGE = 100;
/** Due verification ids read per sweep step (one index range scan). */
export const SWEEP_PAGE = 500;
/**
 * Verifications per redaction job. Settled ones are written in one D1 batch of up to ~10 statements
 * each; with the maintenance queue's batches of 2 an invocation stays far below D1's 1000 queries
 * and the subrequest limit (one bucket listing, or one Durable Object call, per verification).
 */
export const REDACT_CHUNK = 20;
/** Bucket purges or Durable Object calls in flight at once within a redaction job. */
const REDACT_CONCURRENCY = 10;
/** The timeline's `by` of a redaction made by the retention run. */
export const RETENTION_ACTOR = "retention";

/** The daily cron: one `retention_sweep` per tenant with a retention period, cut off at `now`. */
export async function scheduleRetention(env: Env, db: Db, now: number): Promise<number> {
  let after = "";
  let scheduled = 0;
  for (;;) {
    const page = await db
      .select({ id: tenants.id, days: tenants.retentionDays })
      .from(tenants)
      .where(and(isNotNull(tenants.retentionDays), gt(tenants.id, after)))
      .orderBy(asc(tenants.id))
      .limit(TENANT_PAGE);
    await enqueueMaintenanceJobs(
      env,
      page.map((t) => ({ type: "retention_sweep", v: 1, tenant_id: t.id, cutoff: now - t.days! * DAY_MS })),
    );
    scheduled += page.length;
    if (page.length < TENANT_PAGE) return scheduled;
    after = page[page.length - 1]!.id;
  }
}

type SweepJob = Extract<MaintenanceJob, { type: "retention_sweep" }>;

/**
 * One step of a tenant's sweep: the next page of unredacted verifications created before the
 * cutoff (keyset on the partial index `verifications_retention_idx`), queued for redaction in
 * chunks, and the next step queued when the page was full.
 */
export async function sweepTenant(env: Env, db: Db, job: SweepJob, now = Date.now()): Promise<{ queued: number; more: boolean }> {
  const { after } = job;
  // The tenant may have changed its mind since the run was scheduled: a longer period (or none) wins.
  const tenant = await db.select({ days: tenants.retentionDays }).from(tenants).where(eq(tenants.id, job.tenant_id)).get();
  if (!tenant || tenant.days === null) return { queued: 0, more: false };
  const cutoff = Math.min(job.cutoff, now - tenant.days * DAY_MS);
  const page = await db
    .select({ id: verifications.id, createdAt: verifications.createdAt })
    .from(verifications)
    .where(
      and(
        eq(verifications.tenantId, job.tenant_id),
        isNull(verifications.redactedAt),
        lt(verifications.createdAt, cutoff),
        after
          ? or(gt(verifications.createdAt, after.created_at), and(eq(verifications.createdAt, after.created_at), gt(verifications.id, after.id)))
          : undefined,
      ),
    )
    .orderBy(asc(verifications.createdAt), asc(verifications.id))
    .limit(SWEEP_PAGE);
  const jobs: MaintenanceJob[] = [];
  for (let i = 0; i < page.length; i += REDACT_CHUNK) {
    jobs.push({ type: "redact_verifications", v: 1, tenant_id: job.tenant_id, ids: page.slice(i, i + REDACT_CHUNK).map((r) => r.id) });
  }
  const more = page.length === SWEEP_PAGE;
  if (more) {
    const last = page[page.length - 1]!;
    jobs.push({ ...job, cutoff, after: { created_at: last.createdAt, id: last.id } });
  }
  await enqueueMaintenanceJobs(env, jobs);
  return { queued: page.length, more };
}

/**
 * Redacts a chunk. Settled verifications (over, and quiet for long enough) go in one D1 batch under
 * their version compare-and-swap; the rest, and the whole chunk if that batch lost a race, go
 * through their Durable Objects like `POST /redact`. Every id is tried; if any failed the job throws
 * so the queue retries it (the ones already done answer at once, and are completed if a crash left
 * their bucket prefix or events behind).
 */
export async function redactChunk(env: Env, db: Db, ids: string[], now = Date.now()): Promise<void> {
  const records = await loadRecords(db, ids);
  const settled = records.filter((r) => isSettled(r, now));
  const throughObjects = records.filter((r) => !settled.includes(r)).map((r) => r.row.id);
  const failures: string[] = [];
  if (settled.length > 0) {
    const redacted = await redactSettledInBulk(env, db, settled, RETENTION_ACTOR, now);
    if (redacted === null) throughObjects.push(...settled.map((r) => r.row.id));
    else {
      const purgeFailures = await eachLimited(redacted, REDACT_CONCURRENCY, async (id) => void (await purgeVerification(env.EVIDENCE, id)));
      failures.push(...purgeFailures.map((f) => `${f.item}: ${String(f.error)}`));
    }
  }
  const objectFailures = await eachLimited(throughObjects, REDACT_CONCURRENCY, async (id) => {
    const result = await verificationObject(env, id).redact(id, RETENTION_ACTOR);
    if (!result.ok && result.error.code !== "not_found") throw new Error(result.error.code);
  });
  failures.push(...objectFailures.map((f) => `${f.item}: ${String(f.error)}`));
  if (failures.length > 0) throw new Error(`retention redaction failed for ${failures.length} of ${ids.length}: ${failures.slice(0, 3).join("; ")}`);
}
