import canonicalize from "canonicalize";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { linkTemplates, linkTemplateVersions } from "../../db/schema";
import { mixedBatch } from "../../db/statements";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { utcDay } from "../../lib/time";
import { zodFields } from "../../lib/validation";
import { TemplateSpecSchema, type TemplatePatch, type TemplateSpec } from "../../schemas/link-templates";
import { auditInsert, auditInsertWhile, type AuditEntry } from "../audit/log";
import { isUniqueViolation } from "../tenants/tenants";

/**
 * Link templates: a tenant's reusable capture links (`/l/{org}/{slug}`). The row holds the current
 * version; every publish and update also writes an immutable snapshot to `link_template_versions`,
 * and each verification started from a link records the version it was created from.
 */
export type TemplateRow = typeof linkTemplates.$inferSelect;
export type TemplateMode = TemplateRow["mode"];

/** Each round one of the racing updates wins: this many rounds settle a burst of as many at once. */
const UPDATE_ATTEMPTS = 12;

export function specOf(row: Pick<TemplateRow, "spec">): TemplateSpec {
  return row.spec as TemplateSpec;
}

/** The live counter as of `now`: yesterday's starts are not today's. */
export function startedToday(row: TemplateRow, now = Date.now()): number {
  return row.startedDay === utcDay(now) ? row.startedToday : 0;
}

function snapshot(row: TemplateRow) {
  return { templateId: row.id, version: row.version, name: row.name, mode: row.mode, spec: row.spec, createdAt: row.updatedAt };
}

/** What a template write records in the audit log, in its own batch (`template.published`, `template.revoked`). */
export type TemplateAudit = (row: TemplateRow) => AuditEntry;

export async function publishTemplate(
  db: Db,
  tenantId: string,
  input: { slug: string; name: string; mode: TemplateMode; spec: TemplateSpec },
  now = Date.now(),
  audit?: TemplateAudit,
): Promise<TemplateRow> {
  const row: TemplateRow = {
    id: newId("template", now),
    tenantId,
    slug: input.slug,
    name: input.name,
    mode: input.mode,
    status: "active",
    version: 1,
    spec: input.spec,
    startedTotal: 0,
    startedToday: 0,
    startedDay: null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await db.batch([db.insert(linkTemplates).values(row), db.insert(linkTemplateVersions).values(snapshot(row)), ...(audit ? [auditInsert(db, audit(row), now)] : [])]);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    throw ApiError.invalid({ slug: "A template with this slug already exists (revoked slugs stay reserved)." });
  }
  return row;
}

export async function findTemplate(db: Db, tenantId: string, slug: string): Promise<TemplateRow | undefined> {
  return db.select().from(linkTemplates).where(and(eq(linkTemplates.tenantId, tenantId), eq(linkTemplates.slug, slug))).get();
}

async function requireTemplate(db: Db, tenantId: string, slug: string): Promise<TemplateRow> {
  const row = await findTemplate(db, tenantId, slug);
  if (!row) throw ApiError.notFound("link template");
  return row;
}

/** Newest first. */
export async function listTemplates(db: Db, tenantId: string): Promise<TemplateRow[]> {
  return db.select().from(linkTemplates).where(eq(linkTemplates.tenantId, tenantId)).orderBy(desc(linkTemplates.id));
}

/** Applies a patch to the current spec; the result must pass the creation rules as a whole. */
export function mergeSpec(current: TemplateSpec, patch: TemplatePatch): TemplateSpec {
  const { name: _name, mode: _mode, ...fields } = patch;
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  if (fields.steps !== undefined) delete merged.max_captures;
  if (fields.max_captures !== undefined) delete merged.steps;
  const checked = TemplateSpecSchema.safeParse(merged);
  if (!checked.success) throw ApiError.invalid(zodFields(checked.error));
  return checked.data;
}

/**
 * Publishes a new version, unless the patch leaves name, mode and spec as they are. The snapshot
 * insert and the row update share one batch, and the snapshot's primary key (template, version)
 * makes a concurrent update of the same version fail as a whole; the loser re-reads and applies its
 * patch on top, and one that loses every round is told to send it again (409), never a 500.
 */
export async function updateTemplate(db: Db, tenantId: string, slug: string, patch: TemplatePatch, now = Date.now(), audit?: TemplateAudit): Promise<TemplateRow> {
  for (let attempt = 1; ; attempt += 1) {
    const current = await requireTemplate(db, tenantId, slug);
    if (current.status === "revoked") throw new ApiError("invalid_state", "A revoked template cannot be updated.");
    const next: TemplateRow = {
      ...current,
      name: patch.name ?? current.name,
      mode: patch.mode ?? current.mode,
      spec: mergeSpec(specOf(current), patch),
      version: current.version + 1,
      updatedAt: Math.max(now, current.updatedAt),
    };
    // A patch that changes nothing (a retry, a form saved as it was) publishes nothing.
    if (next.name === current.name && next.mode === current.mode && canonicalize(next.spec) === canonicalize(specOf(current))) return current;
    try {
      await db.batch([
        db.insert(linkTemplateVersions).values(snapshot(next)),
        db
          .update(linkTemplates)
          .set({ name: next.name, mode: next.mode, spec: next.spec, version: next.version, updatedAt: next.updatedAt })
          .where(and(eq(linkTemplates.id, current.id), eq(linkTemplates.version, current.version))),
        ...(audit ? [auditInsert(db, audit(next), now)] : []),
      ]);
      return next;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (attempt >= UPDATE_ATTEMPTS) throw new ApiError("invalid_state", "Other updates of this template were being saved at the same moment; send this one again.");
    }
  }
}

/** Revoking is final (the slug stays reserved, so old links keep answering 410). Repeating it is harmless. */
export async function revokeTemplate(db: Db, tenantId: string, slug: string, now = Date.now(), audit?: TemplateAudit): Promise<TemplateRow> {
  const current = await requireTemplate(db, tenantId, slug);
  if (current.status === "revoked") return current;
  const update = db.update(linkTemplates).set({ status: "revoked", updatedAt: now }).where(and(eq(linkTemplates.id, current.id), eq(linkTemplates.status, "active")));
  if (audit) {
    // Recorded only by the request that revokes it (a concurrent twin finds it revoked already).
    const active = { sql: "EXISTS (SELECT 1 FROM link_templates WHERE id = ? AND status = 'active')", params: [current.id] };
    await mixedBatch(db.$client, [auditInsertWhile(db, audit({ ...current, status: "revoked", updatedAt: now }), now, active), update]);
  } else {
    await update.run();
  }
  return requireTemplate(db, tenantId, slug);
}

/** Counts one start, atomically: one UPDATE bumps the total and today's count (reset on a new UTC day). */
export async function countStart(db: Db, templateId: string, now = Date.now()): Promise<void> {
  const day = utcDay(now);
  await db
    .update(linkTemplates)
    .set({
      startedTotal: sql`${linkTemplates.startedTotal} + 1`,
      startedToday: sql`CASE WHEN ${linkTemplates.startedDay} = ${day} THEN ${linkTemplates.startedToday} + 1 ELSE 1 END`,
      startedDay: day,
    })
    .where(eq(linkTemplates.id, templateId))
    .run();
}
