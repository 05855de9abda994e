import { eq } from "drizzle-orm";
import { capabilitiesOf, defaultSignals, unassessable, type Capabilities, type Requirements } from "../analysis/capabilities";
import type { Db } from "../db/client";
import { tenants } from "../db/schema";
import { ApiError, type FieldErrors } from "../lib/errors";
import type { SignalDefaults } from "../model/verification/config";
import { analysisProviders } from "../providers/analysis";
import type { CaptureChannel } from "../schemas/verification-create";

/**
 * `GET /v1/capabilities`: this deployment's, as the asking tenant gets them (its shared reuse index
 * opt-in, the detection provider its `ai_detection_provider` asks).
 */
export async function tenantCapabilities(env: Env, db: Db, tenantId: string): Promise<Capabilities> {
  const tenant = await db.select({ shared: tenants.shareReuseIndex, aiProvider: tenants.aiDetectionProvider }).from(tenants).where(eq(tenants.id, tenantId)).get();
  const providers = analysisProviders(env);
  return capabilitiesOf({ ...providers, aiDecision: providers.aiProviderFor(tenant?.aiProvider ?? null).decision }, { sharedHistory: tenant?.shared === true });
}

/**
 * Admits what a creation or a link template requires on its capture channel: 400 `invalid_request`
 * naming each field this deployment cannot assess and what enables it; otherwise the defaults a
 * creation without `signals_required` gets (the contract's set limited to what is assessable).
 * Reads the configuration only: no storage.
 */
export function assertAssessable(env: Env, requirements: Requirements, channel: CaptureChannel): SignalDefaults {
  const capabilities = capabilitiesOf(analysisProviders(env));
  const refused = unassessable(requirements, capabilities, channel);
  // The context signal judges the captures against a context object: one asked for without it is
  // refused here, beside what the deployment cannot assess, so one answer names every field to fix.
  const missing: FieldErrors = requirements.signals_required?.includes("context") && !requirements.context ? { context: "The context signal requires a context object." } : {};
  if (Object.keys(refused).length > 0) {
    throw ApiError.invalid({ ...refused, ...missing }, "This deployment cannot assess what the request requires: each field says why and what enables it (GET /v1/capabilities).");
  }
  if (Object.keys(missing).length > 0) throw ApiError.invalid(missing);
  return defaultSignals(capabilities.signals, channel);
}

/** The defaults a creation on the channel gets (no check): for showing a template as its verifications will start. */
export function signalDefaults(env: Env, channel: CaptureChannel): SignalDefaults {
  return defaultSignals(capabilitiesOf(analysisProviders(env)).signals, channel);
}
