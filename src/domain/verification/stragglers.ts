import { and, asc, eq, inArray, lte, notExists, sql } from "drizzle-orm";
import { saveFailedAnalysis } from "../../db/analyses";
import type { Db } from "../../db/client";
import { captureAnalyses, captures, verifications } from "../../db/schema";
import type { AnalysisJob } from "../../events/analysis-jobs";
import { sendAnalysisJobs } from "../fairness/analysis-lanes";
import { eachLimited } from "../../lib/concurrency";
import { log } from "../../lib/log";
import { failVerification } from "./fail";

/*
 * The straggler sweep (minutely, src/scheduled.ts): a verification whose evidence is complete
 * (`ready_at`) reaches its verdict or `failed` within 15 minutes, whatever was lost on the way: an
 * events message dead-lettered, an analysis job lost or dropped as malformed, a dead-letter consumer
 * that failed too. Nothing here needs to know which: it re-sends what is missing, and gives up in
 * time. ARCHITECTURE.md "What happens on each fault".
 */

/** Evidence complete this long without a verdict: its analysis is late. Beyond an analysis job's own retries (~2.5 min). */
export const STRAGGLER_GRACE_MS = 3 * 60_000;
/** A late verification's jobs are re-sent once per this, so a backlog is not doubled every minute. */
export const REDRIVE_EVERY_MS = 4 * 60_000;
/** Still without a verdict this long after its evidence was complete: `failed` (the cron runs a minute later at worst). */
export const FAIL_AFTER_MS = 13 * 60_000;
/** The cron's period: each re-drive window holds exactly one run. */
const CRON_PERIOD_MS = 60_000;
const PAGE = 100;
const MAX_PAGES = 20;

export type StragglerAction = "wait" | "redrive" | "fail";

/**
 * What the sweep does with a verification whose evidence was complete at `readyAt`: re-drive it 3,
 * 7 and 11 minutes after, fail it from 13 minutes on (every run, until its object takes it).
 */
export function stragglerAction(readyAt: number, now: number): StragglerAction {
  const age = now - readyAt;
  if (age >= FAIL_AFTER_MS) return "fail";
  if (age >= STRAGGLER_GRACE_MS && (age - STRAGGLER_GRACE_MS) % REDRIVE_EVERY_MS < CRON_PERIOD_MS) return "redrive";
  return "wait";
}

export interface StragglerResult {
  /** verifications whose analysis jobs were sent again */
  redriven: number;
  /** analysis jobs sent (each missing capture analysis, and one settlement per verification) */
  jobs: number;
  /** verifications moved to `failed` */
  failed: number;
  /** verifications the sweep could not re-drive or fail this time (tried again next minute) */
  errors: number;
}

interface Straggler {
  id: string;
  tenantId: string;
  readyAt: number;
}

export async function sweepStragglers(env: Env, db: Db, now: number): Promise<StragglerResult> {
  const result: StragglerResult = { redriven: 0, jobs: 0, failed: 0, errors: 0 };
  let after: { readyAt: number; id: string } | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const rows: Straggler[] = (
      await db
        .select({ id: verifications.id, tenantId: verifications.tenantId, readyAt: verifications.readyAt })
        .from(verifications)
        .where(
          and(
            // The condition of verifications_awaiting_verdict_idx, verbatim, so SQLite uses it.
            sql`status NOT IN ('completed', 'expired', 'failed') AND ready_at IS NOT NULL AND redacted_at IS NULL`,
            lte(verifications.readyAt, now - STRAGGLER_GRACE_MS),
            after ? sql`(${verifications.readyAt}, ${verifications.id}) > (${after.readyAt}, ${after.id})` : undefined,
          ),
        )
        .orderBy(asc(verifications.readyAt), asc(verifications.id))
        .limit(PAGE)
    ).map((r) => ({ ...r, readyAt: r.readyAt! }));
    const byAction = { redrive: [] as Straggler[], fail: [] as Straggler[] };
    for (const row of rows) {
      const action = stragglerAction(row.readyAt, now);
      if (action !== "wait") byAction[action].push(row);
    }
    const unanalysed = await capturesWithoutAnalysis(db, [...byAction.redrive, ...byAction.fail].map((r) => r.id));
    await redrive(env, byAction.redrive, unanalysed, result);
    await giveUp(env, db, byAction.fail, unanalysed, now, result);
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!;
  }
  return result;
}

/** Each verification's analysis jobs again: its captures without an analysis, then its settlement. */
async function redrive(env: Env, rows: Straggler[], unanalysed: Map<string, string[]>, result: StragglerResult): Promise<void> {
  if (rows.length === 0) return;
  const jobs: AnalysisJob[] = [];
  const owner = new Map<AnalysisJob, string>();
  for (const row of rows) {
    const mine: AnalysisJob[] = [
      ...(unanalysed.get(row.id) ?? []).map((captureId): AnalysisJob => ({ type: "analyze_capture", v: 1, verification_id: row.id, capture_id: captureId, tenant_id: row.tenantId })),
      { type: "settle_verification", v: 1, verification_id: row.id, tenant_id: row.tenantId },
    ];
    for (const job of mine) owner.set(job, row.id);
    jobs.push(...mine);
  }
  const { unsent, error } = await sendAnalysisJobs(env, jobs);
  const refused = new Set([...unsent].map((job) => owner.get(job)!));
  if (refused.size > 0) log.error({ msg: "straggler sweep could not re-send analysis jobs", count: refused.size, error: String(error) });
  result.jobs += jobs.length - unsent.size;
  result.redriven += rows.length - refused.size;
  result.errors += refused.size;
}

/**
 * Out of time: the captures still without an analysis are recorded as failed (so the evidence
 * says why), then the verification fails through its object, like a dead-lettered analysis.
 */
async function giveUp(env: Env, db: Db, rows: Straggler[], unanalysed: Map<string, string[]>, now: number, result: StragglerResult): Promise<void> {
  const reason = `no verdict ${FAIL_AFTER_MS / 60_000} minutes after the evidence was complete (its analysis was lost or kept failing)`;
  const failures = await eachLimited(rows, 8, async (row) => {
    for (const captureId of unanalysed.get(row.id) ?? []) await saveFailedAnalysis(db, captureId, row.id, reason, now);
    await failVerification(env, row.id, `analysis_failed: ${reason}`);
  });
  for (const { item, error } of failures) log.error({ msg: "straggler sweep could not fail a verification", verification_id: item.id, error: String(error) });
  result.failed += rows.length - failures.length;
  result.errors += failures.length;
}

/** The captures of these verifications that have no analysis row, by verification. */
async function capturesWithoutAnalysis(db: Db, ids: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await db
      .select({ id: captures.id, verificationId: captures.verificationId })
      .from(captures)
      .where(
        and(
          inArray(captures.verificationId, ids.slice(i, i + 90)),
          notExists(db.select({ one: sql`1` }).from(captureAnalyses).where(eq(captureAnalyses.captureId, captures.id))),
        ),
      )
      .orderBy(asc(captures.verificationId), asc(captures.seq));
    for (const row of rows) out.set(row.verificationId, [...(out.get(row.verificationId) ?? []), row.id]);
  }
  return out;
}
