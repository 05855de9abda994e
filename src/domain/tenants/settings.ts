import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenants } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import type { AiDetectionProviderName, AiProviderSetting } from "../../schemas/ai-providers";
import { auditInsert, type AuditEntry } from "../audit/log";

export interface TenantSettings {
  /** Shown to end users (capture page, certificate) and operators. */
  displayName: string;
  /** Verifications created more than this many days ago are redacted daily; null keeps them. */
  retentionDays: number | null;
  /** Opted in to the shared reuse index (reverse search's `shared_history`; db/analyses.ts). */
  shareReuseIndex: boolean;
  /** The AI-detection provider its captures are sent to: null the deployment's choice, `none` none (providers/ai-detection.ts #decideAiProvider). */
  aiDetectionProvider: AiProviderSetting;
}

const columns = { displayName: tenants.displayName, retentionDays: tenants.retentionDays, shareReuseIndex: tenants.shareReuseIndex, aiDetectionProvider: tenants.aiDetectionProvider };

/**
 * 400 `invalid_request` unless the setting is null, `none` or a provider this deployment configures:
 * a tenant cannot choose a provider nobody can ask.
 */
export function admitAiProviderSetting(setting: AiProviderSetting, configured: readonly AiDetectionProviderName[]): void {
  if (setting === null || setting === "none" || configured.includes(setting)) return;
  const choices = ["null", '"none"', ...configured.map((name) => `"${name}"`)].join(", ");
  throw ApiError.invalid({ ai_detection_provider: `${setting} is not configured in this deployment: choose ${choices} (GET /v1/capabilities lists them).` });
}

export async function readTenantSettings(db: Db, tenantId: string): Promise<TenantSettings> {
  const row = await db.select(columns).from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!row) throw ApiError.notFound("tenant");
  return row;
}

/** Each setting's name on the wire (the audit entry names what changed as the API does). */
const WIRE_NAMES: Record<keyof TenantSettings, string> = {
  displayName: "display_name",
  retentionDays: "retention_days",
  shareReuseIndex: "share_reuse_index",
  aiDetectionProvider: "ai_detection_provider",
};

/**
 * Changes the settings the patch gives a new value (one UPDATE, with `audit`'s `settings.updated`
 * entry naming exactly those, in the same batch); answers all of them as they now are. A patch that
 * changes nothing writes nothing and records nothing, as a template update that changes nothing does.
 */
export async function updateTenantSettings(
  db: Db,
  tenantId: string,
  patch: Partial<TenantSettings>,
  audit?: (changed: Record<string, unknown>) => AuditEntry,
  now = Date.now(),
): Promise<TenantSettings> {
  const current = await readTenantSettings(db, tenantId);
  const set: Partial<TenantSettings> = {};
  const changed: Record<string, unknown> = {};
  for (const key of Object.keys(WIRE_NAMES) as Array<keyof TenantSettings>) {
    if (patch[key] === undefined || patch[key] === current[key]) continue;
    Object.assign(set, { [key]: patch[key] });
    changed[WIRE_NAMES[key]] = patch[key];
  }
  if (Object.keys(set).length === 0) return current;
  const update = db.update(tenants).set(set).where(eq(tenants.id, tenantId)).returning(columns);
  const [rows] = audit ? await db.batch([update, auditInsert(db, audit(changed), now)]) : [await update];
  if (rows.length === 0) throw ApiError.notFound("tenant");
  return rows[0]!;
}
