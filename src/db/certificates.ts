import { and, desc, eq } from "drizzle-orm";
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
  tenantName: string;
  latest: LatestCertificate | null;
  /** Whether the key this Worker would sign with was withdrawn. */
  currentKeyWithdrawn: boolean;
}

/**
 * What deciding on a certificate reads, in one D1 batch (one consistent snapshot): the record, its
 * tenant's display name, its latest certificate and whether the current key was withdrawn.
 */
export async function signingSnapshot(db: Db, verificationId: string, currentKid: string): Promise<SigningSnapshot> {
  const d1 = db.$client;
  const results = await d1.batch([
    ...recordStatements(d1, verificationId),
    d1.prepare("SELECT t.display_name AS name FROM tenants t JOIN verifications v ON v.tenant_id = t.id WHERE v.id = ?").bind(verificationId),
    d1.prepare(LATEST_SQL).bind(verificationId),
    d1.prepare("SELECT 1 AS withdrawn FROM certificate_keys WHERE kid = ? AND withdrawn_at IS NOT NULL").bind(currentKid),
  ]);
  const [tenant, latest, withdrawn] = results.slice(3) as [D1Result<{ name: string }>, D1Result<LatestRaw>, D1Result];
  return {
    record: recordFromResults(results.slice(0, 3)),
    tenantName: tenant.results[0]?.name ?? "",
    latest: toLatest(latest.results[0]),
    currentKeyWithdrawn: withdrawn.results.length > 0,
  };
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

/** The latest certificate a live (unrevoked) link shows, found by the link's token hash; null for an unknown or revoked link. */
export async function certificateByLinkToken(db: Db, tokenHash: string): Promise<LatestCertificate | null> {
  const raw = await db.$client
    .prepare(
      `SELECT c.verification_id AS verificationId, c.sequence, c.tenant_id AS tenantId, c.state_version AS stateVersion,
        c.content_sha256 AS contentSha256, c.kid, c.jws, c.issued_at AS issuedAt, k.withdrawn_at IS NOT NULL AS keyWithdrawn
       FROM certificate_links l
       JOIN certificates c ON c.verification_id = l.verification_id
       LEFT JOIN certificate_keys k ON k.kid = c.kid
       WHERE l.token_hash = ? AND l.revoked_at IS NULL
       ORDER BY c.sequence DESC LIMIT 1`,
    )
    .bind(tokenHash)
    .first<LatestRaw>();
  return toLatest(raw);
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
