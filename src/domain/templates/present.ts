import { iso } from "../../lib/time";
import { DEFAULT_EXPIRES_IN_SECONDS } from "../../schemas/verification-create";
import { normalizeConfig } from "../../model/verification/config";
import { specOf, startedToday, type TemplateRow } from "./templates";

export function templateUrl(baseUrl: string, orgSlug: string, slug: string): string {
  return `${baseUrl}/l/${orgSlug}/${slug}`;
}

/** The Link template item: the current version's spec as verifications will get it, plus the live counters. */
export function presentTemplate(row: TemplateRow, options: { baseUrl: string; orgSlug: string; now?: number }): Record<string, unknown> {
  const spec = specOf(row);
  const { seal, expires_in_seconds, ...configInput } = spec;
  const { mode: _mode, ...config } = normalizeConfig(configInput);
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    mode: row.mode,
    status: row.status,
    version: row.version,
    url: templateUrl(options.baseUrl, options.orgSlug, row.slug),
    ...config,
    expires_in_seconds: expires_in_seconds ?? DEFAULT_EXPIRES_IN_SECONDS,
    seal: seal !== false,
    started_total: row.startedTotal,
    started_today: startedToday(row, options.now),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
