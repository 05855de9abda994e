import { activeLinkByToken, findLink, linkedVerificationId, insertLinkUnderCap, linkStored, linksOf, linkUnrevoked, revokeLink, type CertificateLinkRow } from "../../db/certificates";
import type { Db } from "../../db/client";
import { loadTenantRecord } from "../../db/verifications";
import type { Principal } from "../../auth/principal";
import { ApiError } from "../../lib/errors";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { isId, newId } from "../../lib/ids";
import { auditInsertWhile, type AuditEntry } from "../audit/log";
import { uncertifiable, UNCERTIFIABLE_MESSAGES } from "./content";
import { currentCertificate, type IssuedCertificate } from "./issue";

/*
 * Certificate links: a verification's certificate behind a credential of its own, so sharing a
 * result never shares the capture link (`vfy_…`). The token is `cert_` + 256 fresh CSPRNG bits; only
 * its SHA-256 is stored, so the URL is shown once, at creation. Revoking is immediate: the link
 * then answers 404 like one that never existed. Creating and revoking are recorded in the audit log
 * (`certificate_link.created`, `.revoked`) in the same batch as the change; an entry names the link
 * by its id, never by its URL (the token is a credential).
 */

const TOKEN_PATTERN = /^cert_[0-9A-Za-z]{43}$/;
/** Unrevoked links per verification: plenty for every party a case is shared with, and a bound on the rows a key can make. */
export const MAX_ACTIVE_LINKS = 50;

export interface CreatedLink {
  row: CertificateLinkRow;
  token: string;
  certificate: IssuedCertificate;
}

/**
 * A new link to a verification's certificate, with `audit(row)`'s entry. The verification must be
 * completed with its verdict (409 `invalid_state` before: there is no certificate to share yet); its
 * certificate is signed now if the events consumer has not yet done it, so a link never points at nothing.
 */
export async function createCertificateLink(
  env: Env,
  db: Db,
  principal: Principal,
  verificationId: string,
  audit: (row: CertificateLinkRow) => AuditEntry,
  now = Date.now(),
): Promise<CreatedLink> {
  const record = isId("verification", verificationId) ? await loadTenantRecord(db, principal.tenantId, verificationId) : null;
  if (!record) throw ApiError.notFound("verification");
  const refused = uncertifiable(record.row);
  if (refused) throw new ApiError("invalid_state", UNCERTIFIABLE_MESSAGES[refused]);
  const certified = await currentCertificate(env, db, verificationId, now);
  if (!certified) throw new ApiError("invalid_state", "This verification has no certificate.");
  const token = `cert_${randomBase62(43)}`;
  const row: CertificateLinkRow = {
    id: newId("certificateLink", now),
    verificationId,
    tenantId: principal.tenantId,
    tokenHash: await sha256Hex(token),
    createdBy: principal.kind === "session" ? principal.userId : principal.kind === "api_key" ? principal.keyId : "bot",
    createdAt: now,
    revokedAt: null,
  };
  // The entry goes in only if the link did: a creation the cap refuses records nothing.
  const [inserted] = await db.$client.batch([insertLinkUnderCap(db, row, MAX_ACTIVE_LINKS), auditInsertWhile(db, audit(row), now, linkStored(row.id))]);
  if (!inserted?.meta.changes) {
    throw new ApiError("invalid_state", `This verification already has ${MAX_ACTIVE_LINKS} active certificate links; revoke one first.`);
  }
  return { row, token, certificate: certified.certificate };
}

/**
 * The certificate a link shows now; null for a malformed, unknown or revoked token, and for a
 * verification no longer certifiable (a link made before nothing-evaluated verdicts were refused):
 * all answer 404.
 */
export async function certificateForLink(env: Env, db: Db, token: string, now = Date.now()): Promise<IssuedCertificate | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const verificationId = await linkedVerificationId(db, await sha256Hex(token));
  if (!verificationId) return null;
  // What the API serves (null when no longer certifiable): the stored certificate while its content
  // (the tenant's name and proved domain included), key, schema and expiry still hold; otherwise
  // signed again before anyone sees it.
  return (await currentCertificate(env, db, verificationId, now))?.certificate ?? null;
}

/** Whether `token` is an unrevoked link to this tenant's verification (the evidence report prints it then). */
export async function isActiveLinkOf(db: Db, tenantId: string, verificationId: string, token: string): Promise<boolean> {
  return TOKEN_PATTERN.test(token) && (await activeLinkByToken(db, tenantId, verificationId, await sha256Hex(token))) !== undefined;
}

export async function listCertificateLinks(db: Db, tenantId: string, verificationId: string): Promise<CertificateLinkRow[]> {
  const record = isId("verification", verificationId) ? await loadTenantRecord(db, tenantId, verificationId) : null;
  if (!record) throw ApiError.notFound("verification");
  return linksOf(db, tenantId, verificationId);
}

/**
 * Revokes a link of this tenant, recording `audit(row)`'s entry only if this call revoked it: the
 * entry is conditional on the link being unrevoked and precedes the UPDATE in one batch, so a repeat
 * or a concurrent twin records nothing. The link as it stands after; 404 for an unknown or another
 * tenant's id.
 */
export async function revokeCertificateLink(db: Db, tenantId: string, linkId: string, audit: (row: CertificateLinkRow) => AuditEntry, now = Date.now()): Promise<CertificateLinkRow> {
  const before = isId("certificateLink", linkId) ? await findLink(db, tenantId, linkId) : undefined;
  if (!before) throw ApiError.notFound("certificate link");
  if (before.revokedAt !== null) return before;
  await db.$client.batch([auditInsertWhile(db, audit(before), now, linkUnrevoked(tenantId, linkId)), revokeLink(db, tenantId, linkId, now)]);
  const after = await findLink(db, tenantId, linkId);
  if (!after) throw ApiError.notFound("certificate link");
  return after;
}
