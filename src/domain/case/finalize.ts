import { CaseNotReady, runCaseAnalysis } from "../../analysis/case-runner";
import { enqueueAnalysisJob } from "../../events/analysis-jobs";
import type { Db } from "../../db/client";
import { loadTenantRecord, type VerificationRecord } from "../../db/verifications";
import { unwrap, verificationObject } from "../../durable-objects/verification-client";
import { ApiError } from "../../lib/errors";
import { isId } from "../../lib/ids";
import { log } from "../../lib/log";
import type { AuditEntry } from "../audit/log";

/** How long finalize waits for the case analysis before answering without it (then it is queued). */
export const CASE_ANALYSIS_BUDGET_MS = 4_000;

const BUDGET_EXCEEDED = Symbol("budget exceeded");

/**
 * Finalizes a case with its narrative (once; the status is unchanged), then tries the case analysis
 * within the budget. When it does not finish in time, or the captures are still being analysed, the
 * analysis is queued and `case_analysis` appears on the verification later.
 */
export async function finalizeCase(
  env: Env,
  db: Db,
  /** `budgetMs` ≤ 0 skips the synchronous attempt: the analysis is always queued. */
  /** `audit`: `verification.finalized`, written in the finalize's own batch by the verification's object. */
  input: { tenantId: string; id: string; narrative: string; budgetMs?: number; waitUntil?: (work: Promise<unknown>) => void; audit?: AuditEntry },
): Promise<{ record: VerificationRecord; analysed: boolean }> {
  const existing = isId("verification", input.id) ? await loadTenantRecord(db, input.tenantId, input.id) : null;
  if (!existing) throw ApiError.notFound("verification");
  const { record } = unwrap(await verificationObject(env, input.id).finalize(input.id, input.narrative, input.audit));

  const budgetMs = input.budgetMs ?? CASE_ANALYSIS_BUDGET_MS;
  if (budgetMs <= 0) {
    await enqueueAnalysisJob(env, { type: "analyze_case", v: 1, verification_id: input.id, tenant_id: input.tenantId });
    return { record, analysed: false };
  }
  const work = runCaseAnalysis(env, input.id);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const budget = new Promise<typeof BUDGET_EXCEEDED>((resolve) => {
    timer = setTimeout(() => resolve(BUDGET_EXCEEDED), budgetMs);
  });
  try {
    const outcome = await Promise.race([work, budget]);
    if (outcome !== BUDGET_EXCEEDED && outcome) return { record: outcome, analysed: true };
    // Over budget: the running analysis may still finish (recording is idempotent); the queue is the
    // guarantee that it eventually does.
    input.waitUntil?.(work.catch(() => undefined));
  } catch (err) {
    if (!(err instanceof CaseNotReady)) log.error({ msg: "synchronous case analysis failed; queued", verification_id: input.id, error: String(err) });
  } finally {
    clearTimeout(timer);
  }
  await enqueueAnalysisJob(env, { type: "analyze_case", v: 1, verification_id: input.id, tenant_id: input.tenantId });
  return { record, analysed: false };
}
