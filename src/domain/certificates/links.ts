import { certificateByLinkToken, insertLinkUnderCap, linksOf, revokeLink, type CertificateLinkRow } from "../../db/certificates";
import type { Db } from "../../db/client";
import { loadTenantRecord } from "../../db/verifications";
import type { Principal } from "../../auth/principal";
import { ApiError } from "../../lib/errors";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { isId, newId } from "../../lib/ids";
import { isCertifiable } from "./content";
import { currentCertificate, type IssuedCertificate } from "./issue";

/*
 * Certificate links: a verification's certificate behind a credential of its own, so sharing a
 * result never shares the capture link (`vfy_…`). The token is `cert_` + 256 fresh CSPRNG bits; only
 * its SHA-256 is stored, so the URL is shown once, at creation. Revoking is immediate: the link
 * then answers 404 like one that never existed.
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
 * A new link to a verification's certificate. The verification must be completed with its verdict
 * (409 `invalid_state` before: there is no certificate to share yet); its certificate is signed now
 * if the events consumer has not yet done it, so a link never points at nothing.
 */
export async function createCertificateLink(env: Env, db: Db, principal: Principal, verificationId: string, now = Date.now()): Promise<CreatedLink> {
  const record = isId("verification", verificationId) ? await loadTenantRecord(db, principal.tenantId, verificationId) : null;
  if (!record) throw ApiError.notFound("verification");
  if (!isCertifiable(record.row)) {
    throw new ApiError("invalid_state", "A certificate is issued when the verification completes with its verdict; there is none to share yet.");
  }
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
  if (!(await insertLinkUnderCap(db, row, MAX_ACTIVE_LINKS))) {
    throw new ApiError("invalid_state", `This verification already has ${MAX_ACTIVE_LINKS} active certificate links; revoke one first.`);
  }
  return { row, token, certificate: certified.certificate };
}

/** The certificate a link shows now; null for a malformed, unknown or revoked token (all answer 404). */
export async function certificateForLink(env: Env, db: Db, token: string): Promise<IssuedCertificate | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const latest = await certificateByLinkToken(db, await sha256Hex(token));
  if (!latest) return null;
  // Signed by a key withdrawn since: signed again with the current key before anyone sees it.
  if (latest.keyWithdrawn) return (await currentCertificate(env, db, latest.verificationId))?.certificate ?? null;
  return { verificationId: latest.verificationId, sequence: latest.sequence, kid: latest.kid, jws: latest.jws, issuedAt: latest.issuedAt };
}

export async function listCertificateLinks(db: Db, tenantId: string, verificationId: string): Promise<CertificateLinkRow[]> {
  const record = isId("verification", verificationId) ? await loadTenantRecord(db, tenantId, verificationId) : null;
  if (!record) throw ApiError.notFound("verification");
  return linksOf(db, tenantId, verificationId);
}

export async function revokeCertificateLink(db: Db, tenantId: string, linkId: string, now = Date.now()): Promise<CertificateLinkRow> {
  const row = isId("certificateLink", linkId) ? await revokeLink(db, tenantId, linkId, now) : undefined;
  if (!row) throw ApiError.notFound("certificate link");
  return row;
}
