import type { Db } from "../../db/client";
import { enforceRateLimit } from "../../durable-objects/rate-limiter-client";
import { settings } from "../../env";
import { clientKey } from "../public-limits";
import { ApiError } from "../../lib/errors";
import { CreateVerificationSchema } from "../../schemas/verification-create";
import { findTenant } from "../tenants/tenants";
import { captureUrl } from "../../model/verification/present";
import { createVerification } from "../verification/service";
import { log } from "../../lib/log";

/** `POST /v1/public/trial/start`: 1000 starts per hour per client IP, counted in a Durable Object per IP. */
export const TRIAL_LIMIT = 1000;
export const TRIAL_WINDOW_MS = 60 * 60 * 1000;
/** The server-set origin of trial verifications; only it sends the verdict to the trial number. */
export const TRIAL_ORIGIN_CHANNEL = "wa";
/** A trial is one live photo, valid for a day. */
const TRIAL_EXPIRES_IN_SECONDS = 24 * 60 * 60;

/** Per client address (`CF-Connecting-IP`; an IPv6 client by its /64). */
export function trialLimiterKey(clientIp: string | undefined): string {
  return `trial:${clientKey(clientIp)}`;
}

/**
 * Mints a verification under the operator's trial tenant (env `TRIAL_TENANT_ID`), tagged with the
 * `wa` origin channel so its verdict goes to the trial number over messaging.
 */
export async function startTrial(env: Env, db: Db, input: { clientIp: string | undefined; source?: string }, now = Date.now()) {
  const tenantId = env.TRIAL_TENANT_ID;
  if (!tenantId || !(await findTenant(db, tenantId))) {
    log.error({ msg: "trial start refused: TRIAL_TENANT_ID is unset or names no tenant", tenant_id: tenantId ?? null });
    throw new ApiError("not_found", "Trials are not available.");
  }
  await enforceRateLimit(env, trialLimiterKey(input.clientIp), TRIAL_LIMIT, TRIAL_WINDOW_MS, "Too many trial starts from this address; try again later.");
  const creation = CreateVerificationSchema.parse({
    max_captures: 1,
    expires_in_seconds: TRIAL_EXPIRES_IN_SECONDS,
    metadata: { origin_channel: "wa", ...(input.source ? { source: input.source } : {}) },
  });
  const outcome = await createVerification(env, db, { tenantId, input: creation, originChannel: TRIAL_ORIGIN_CHANNEL, now });
  if (outcome.kind !== "created") throw new Error("a trial start never replays");
  const id = outcome.record.row.id;
  return { verificationId: id, captureUrl: captureUrl(settings(env).baseUrl, id) };
}
