import { decodeJwt } from "jose";
import type { CertificateLinkRow } from "../../db/certificates";
import { iso } from "../../lib/time";
import type { CertificatePayload } from "./content";
import type { IssuedCertificate } from "./issue";

/** Where the keys are published (the issuer's origin and path, RFC 8615 well-known). */
export function jwksUrl(baseUrl: string): string {
  return `${baseUrl}/.well-known/jwks.json`;
}

export function certificateLinkUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/v1/certificates/${token}`;
}

/**
 * The certificate in its wire shape, the same everywhere (links, the authenticated read, webhooks):
 * the compact JWS (what counts), where its key is published, and for convenience what it says
 * (`payload`, decoded from the JWS: a reader must verify the JWS, not trust this copy).
 */
export function presentCertificate(certificate: IssuedCertificate, baseUrl: string) {
  const payload = decodeJwt(certificate.jws) as unknown as CertificatePayload;
  return {
    certificate: certificate.jws,
    jwks_url: jwksUrl(baseUrl),
    kid: certificate.kid,
    sequence: certificate.sequence,
    issued_at: iso(certificate.issuedAt),
    expires_at: iso(payload.exp * 1000),
    payload,
  };
}

export function presentLink(row: CertificateLinkRow) {
  return {
    id: row.id,
    verification_id: row.verificationId,
    created_by: row.createdBy,
    created_at: iso(row.createdAt),
    ...(row.revokedAt !== null ? { revoked_at: iso(row.revokedAt) } : {}),
  };
}
