import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "./client";
import { certificateKeys, certificateLinks, certificates } from "./schema";
import { recordFromResults, recordStatements, type VerificationRecord } from "./verifications";

export type CertificateRow = typeof certificates.$inferSelect;
export type CertificateKeyRow = typeof certificateKeys.$inferSelect;
export type CertificateLinkRow = typeof certificateLinks.$inferSelect;

/** The latest certificate with whether its key was withdrawn. */
export type LatestCertificate = CertificateRow & { keyWithdrawn: boolean };

const LATEST_SQL = `SELECT c.verification_id AS verificationId, c.sequence, c.tenant_id AS tenantId, c.state_version AS stateVersion,
  c.content_sha256 AS contentSha256, c.kid, c.jws, c.issued_at AS issuedAt, k.withdrawn_at IS NOT NULL AS keyWithdrawn
  FROM certificates c LEFT JOIN certificate_keys k ON k.kid = c.kid
  WHERE c.verification_id = ? ORDER BY c.sequence DESC LIMIT 1`;

type LatestRaw = Omit<LatestCertificate, "keyWithdrawn"> & { keyWithdrawn: number };
const toLatest = (raw: LatestRaw | undefined | null): LatestCertificate | null => (raw ? { ...raw, keyWithdrawn: raw.keyWithdrawn === 1 } : null);

export interface SigningSnapshot {
  record: VerificationRecord | null;
  tenant: { id: string; displayName: string; verifiedDomain: string | null };
  /** Each capture's stored signals (the methods that decided them). */
  analyses: Array<{ captureId: string; signals: Record<string, unknown> | null }>;
  latest: LatestCertificate | null;
  /** Whether the key this Worker would sign with was withdrawn. */
  currentKeyWithdrawn: boolean;
}

type TenantRaw = { id: string; displayName: string; verifiedDomain: string | null };

/**
 * What deciding on a certificate reads, in one D1 batch (one consistent snapshot): the record, its
 * tenant (id, declared name, verified domain), each capture's stored signals, its latest
 * certificate and whether the current key was withdrawn.
 */
export async function signingSnapshot(db: Db, verificationId: string, currentKid: string): Promise<SigningSnapshot> {
  const d1 = db.$client;
  const results = await d1.batch([
    ...recordStatements(d1, verificationId),
    d1
      .prepare("SELECT t.id, t.display_name AS displayName, t.verified_domain AS verifiedDomain FROM tenants t JOIN verifications v ON v.tenant_id = t.id WHERE v.id = ?")
      .bind(verificationId),
    // Only the signals: the rest of a stored analysis (metadata, measures) is no business of a certificate.
    d1.prepare("SELECT capture_id AS captureId, json_extract(result, '$.signals') AS signals FROM capture_analyses WHERE verification_id = ? AND status = 'completed'").bind(verificationId),
    d1.prepare(LATEST_SQL).bind(verificationId),
    d1.prepare("SELECT 1 AS withdrawn FROM certificate_keys WHERE kid = ? AND withdrawn_at IS NOT NULL").bind(currentKid),
  ]);
  const [tenant, analyses, latest, withdrawn] = results.slice(3) as [D1Result<TenantRaw>, D1Result<{ captureId: string; signals: string | null }>, D1Result<LatestRaw>, D1Result];
  return {
    record: recordFromResults(results.slice(0, 3)),
    tenant: tenant.results[0] ?? { id: "", displayName: "", verifiedDomain: null },
    analyses: analyses.results.map((a) => ({ captureId: a.captureId, signals: parseSignals(a.signals) })),
    latest: toLatest(latest.results[0]),
    currentKeyWithdrawn: withdrawn.results.length > 0,
  };
}

function parseSignals(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const parsed = JSON.parse(text) as unknown;
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/**
 * Stores a certificate unless one with this sequence or a later state exists (a concurrent signer
 * got there first: the caller reads again), and records the public half of its key. One batch;
 * true when the certificate was stored.
 */
export async function insertCertificate(db: Db, row: CertificateRow, publicJwk: Record<string, string>): Promise<boolean> {
  const d1 = db.$client;
  const [inserted] = await d1.batch([
    d1
      .prepare(
        `INSERT INTO certificates (verification_id, sequence, tenant_id, state_version, content_sha256, kid, jws, issued_at)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?
         WHERE NOT EXISTS (SELECT 1 FROM certificates WHERE verification_id = ? AND (sequence >= ? OR state_version > ?))
           AND NOT EXISTS (SELECT 1 FROM certificate_keys WHERE kid = ? AND withdrawn_at IS NOT NULL)`,
      )
      .bind(row.verificationId, row.sequence, row.tenantId, row.stateVersion, row.contentSha256, row.kid, row.jws, row.issuedAt, row.verificationId, row.sequence, row.stateVersion, row.kid),
    d1.prepare("INSERT OR IGNORE INTO certificate_keys (kid, public_jwk, created_at) VALUES (?, ?, ?)").bind(row.kid, JSON.stringify(publicJwk), row.issuedAt),
  ]);
  return (inserted!.meta.changes ?? 0) > 0;
}

export async function certificateKeyRows(db: Db): Promise<CertificateKeyRow[]> {
  return db.select().from(certificateKeys).orderBy(desc(certificateKeys.createdAt));
}

/** Every certificate of a verification, oldest first. */
export async function certificatesOf(db: Db, verificationId: string): Promise<CertificateRow[]> {
  return db.select().from(certificates).where(eq(certificates.verificationId, verificationId)).orderBy(certificates.sequence);
}

/** The verification a live (unrevoked) link shows, found by the link's token hash; null for an unknown or revoked link. */
export async function linkedVerificationId(db: Db, tokenHash: string): Promise<string | null> {
  const row = await db.$client
    .prepare("SELECT verification_id AS verificationId FROM certificate_links WHERE token_hash = ? AND revoked_at IS NULL")
    .bind(tokenHash)
    .first<{ verificationId: string }>();
  return row?.verificationId ?? null;
}

/**
 * The INSERT of a link unless the verification already has `cap` unrevoked ones (one statement, so
 * concurrent creations cannot pass the cap together): it changes one row when the link went in.
 */
export function insertLinkUnderCap(db: Db, row: CertificateLinkRow, cap: number): D1PreparedStatement {
  return db.$client
    .prepare(
      `INSERT INTO certificate_links (id, verification_id, tenant_id, token_hash, created_by, created_at, revoked_at)
       SELECT ?, ?, ?, ?, ?, ?, NULL
       WHERE (SELECT count(*) FROM certificate_links WHERE verification_id = ? AND revoked_at IS NULL) < ?`,
    )
    .bind(row.id, row.verificationId, row.tenantId, row.tokenHash, row.createdBy, row.createdAt, row.verificationId, cap);
}

/** Holds once the link is stored: after `insertLinkUnderCap` in its batch, only if that statement inserted it. */
export const linkStored = (id: string) => ({ sql: "EXISTS (SELECT 1 FROM certificate_links WHERE id = ?)", params: [id] });

/** Holds while this tenant's link is unrevoked. */
export const linkUnrevoked = (tenantId: string, id: string) => ({
  sql: "EXISTS (SELECT 1 FROM certificate_links WHERE id = ? AND tenant_id = ? AND revoked_at IS NULL)",
  params: [id, tenantId],
});

/** A verification's links, newest first (revoked ones included). */
export async function linksOf(db: Db, tenantId: string, verificationId: string): Promise<CertificateLinkRow[]> {
  return db
    .select()
    .from(certificateLinks)
    .where(and(eq(certificateLinks.tenantId, tenantId), eq(certificateLinks.verificationId, verificationId)))
    .orderBy(desc(certificateLinks.id));
}

export async function findLink(db: Db, tenantId: string, id: string): Promise<CertificateLinkRow | undefined> {
  return db.select().from(certificateLinks).where(and(eq(certificateLinks.tenantId, tenantId), eq(certificateLinks.id, id))).get();
}

/** The UPDATE that revokes this tenant's link; it changes nothing if the link was revoked already (the first time stays). */
export function revokeLink(db: Db, tenantId: string, id: string, now: number): D1PreparedStatement {
  return db.$client.prepare("UPDATE certificate_links SET revoked_at = ? WHERE id = ? AND tenant_id = ? AND revoked_at IS NULL").bind(now, id, tenantId);
}

/** This verification's unrevoked link whose token hashes to `tokenHash`, if any. */
export async function activeLinkByToken(db: Db, tenantId: string, verificationId: string, tokenHash: string): Promise<CertificateLinkRow | undefined> {
  return db
    .select()
    .from(certificateLinks)
    .where(and(eq(certificateLinks.tenantId, tenantId), eq(certificateLinks.verificationId, verificationId), eq(certificateLinks.tokenHash, tokenHash), isNull(certificateLinks.revokedAt)))
    .get();
}
