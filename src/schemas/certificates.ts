import { z } from "@hono/zod-openapi";
import { DateTime, pathId, VerificationId } from "./common";
import { REVIEW_DECISIONS } from "./review";
import { STATUSES, VerdictSchema } from "./verification";

/* Certificates: the signed payload, its envelope, the key set and the share links (domain/certificates). */

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/).openapi({ example: "9f2c4e0b7d1a3c5e8f6b2d4a7c9e1f3b5d7a9c2e4f6b8d0a1c3e5f7b9d2a4c6e" });

export const CertifiedCaptureSchema = z
  .object({
    id: z.string().openapi({ example: "cap_01JD2Y5B7C9D1E3F5G7H9J1K3M" }),
    step_key: z.string(),
    kind: z.enum(["live", "uploaded"]).openapi({
      description:
        "`live`: submitted through the capture link for an image step (the service saw it arrive there; it cannot tell a camera from a file chosen on the device); " +
        "`uploaded`: an existing file (an upload step, or audit mode).",
    }),
    received_at: DateTime.openapi({ description: "When this service accepted the capture (its clock; not when the photo was taken)." }),
    sha256: Sha256.openapi({ description: "SHA-256 (hex) of the bytes exactly as received: a copy of the photo with this digest is the photo that was verified." }),
  })
  .openapi("CertifiedCapture");

export const CERTIFIED_SIGNAL_STATUSES = ["assessed", "not_assessed", "not_applicable"] as const;

export const CertifiedSignalSchema = z
  .object({
    status: z.enum(CERTIFIED_SIGNAL_STATUSES).openapi({
      description: "`assessed`: evaluated on the live captures; `not_assessed`: required but could not be evaluated; `not_applicable`: no live capture to evaluate it on.",
    }),
    method: z.string().optional().openapi({
      description:
        "What decided an assessed signal: `pixels` (measured on the image's pixels by the moiré detector of `screen_detection`, never for `ai_detection`, where `pixels` is reserved: no detector of generated images ships), `provenance` (the file's provenance metadata), `depth_map`, `capture_burst` (the frames around the shutter that the capture page sent and the service measured: they moved with depth), `capture_burst_flat_scene` (the same, where the frames moved as one plane: a flat subject or a scene far away, not a scene with depth), `capture_burst_no_parallax` (the same, where the frames moved too little, or held too little texture, to judge depth: a live camera, nothing said of the scene), `perceptual_hash` " +
        "(compared with earlier captures), or `provider:<name>` (an external provider); several, comma-separated, when captures were decided differently.",
      example: "provenance",
    }),
  })
  .openapi("CertifiedSignal");

const certifiedFields = {
  iss: z.string().openapi({ description: "The issuing service (`PUBLIC_BASE_URL`); its keys are at `{iss}/.well-known/jwks.json`.", example: "https://verify.example.com" }),
  iat: z.int().openapi({ description: "Issued at (unix seconds).", example: 1795428252 }),
  sequence: z.int().min(1).openapi({ description: "1 for the verification's first certificate, +1 for each later one (review, finalize, redaction, or the same statement signed again before it expires)." }),
};

const verificationFields = {
  id: VerificationId,
  status: z.enum(STATUSES),
  created_at: DateTime,
  completed_at: DateTime,
  finalized_at: DateTime.optional().openapi({ description: "When an operator finalized the case with a narrative (finalize); evidence received after it is still taken." }),
  redacted_at: DateTime.optional().openapi({ description: "When the evidence was erased: the photos are gone, the digests stay." }),
  review: z
    .object({ decision: z.enum(REVIEW_DECISIONS), reviewed_at: DateTime })
    .optional()
    .openapi({ description: "The latest operator review, when one was recorded once the verification completed (one recorded while it still took evidence is not certified; the reviewer and the note never are)." }),
  record_seal: z
    .object({ algorithm: z.literal("sha256"), hash: Sha256 })
    .optional()
    .openapi({ description: "The record seal's hash (see `record_seal` on the Verification): the tenant, who holds the record, can show a record matches it." }),
  captures: z.array(CertifiedCaptureSchema),
};

const verdictFields = {
  label: VerdictSchema.shape.label,
  reason_code: VerdictSchema.shape.reason_code,
  assessment: VerdictSchema.shape.assessment,
};

export const CertificatePayloadSchema = z
  .object({
    ...certifiedFields,
    exp: z.int().openapi({
      description:
        "Expires at (unix seconds), 7 days after `iat`: a verifier refuses the certificate after it. Whoever serves a certificate (its link, the API, a webhook) serves one with at least 3.5 days left, " +
        "so a revoked link's certificates stop verifying within 7 days.",
      example: 1796033052,
    }),
    schema_version: z.literal(2),
    verification: z.object({
      ...verificationFields,
      tenant: z
        .object({
          id: z.string().openapi({ description: "The tenant (`tnt_…`) that asked for the verification: the issuer's account, stable whatever its name.", example: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
          display_name: z.string().openapi({ description: "The name the tenant declared for itself: typed by it, not checked by the issuer." }),
          verified_domain: z.string().optional().openapi({
            description: "A domain the tenant proved it controls (a DNS TXT record the issuer checks, and re-checks periodically); absent when it proved none.",
            example: "acme-insurance.example",
          }),
        })
        .openapi({ description: "Who asked for the verification. Rely on `verified_domain` when present; `display_name` is only what the tenant calls itself." }),
      verdict: z.object({
        ...verdictFields,
        signals: z.record(z.string(), CertifiedSignalSchema).openapi({
          description: "Each signal the verification required, keyed as in the verdict (`screen_detection`, `ai_detection`, `reverse_search`, `depth`, `context_match`): its status and method; never a value or a score.",
          example: { screen_detection: { status: "assessed", method: "pixels" }, ai_detection: { status: "assessed", method: "provenance" } },
        }),
      }),
    }),
  })
  .openapi("CertificatePayload", {
    description:
      "What a certificate's JWS says (its payload, decoded), `schema_version` 2. It states what this service saw and decided, who asked for it and how each required signal was decided; " +
      "it does not say that a photo shows the truth. Nothing private: no answers, metadata, context, locations, photos or signal values. " +
      "Certificates signed before version 2 (`CertificatePayloadV1`) still verify; the service signs a stored one again as version 2 when it next serves it.",
  });

/** What certificates signed before `schema_version` 2 say: no tenant id, verified domain or signals. Verifiers read it; the service no longer issues it. */
export const CertificatePayloadV1Schema = z
  .object({
    ...certifiedFields,
    schema_version: z.literal(1),
    verification: z.object({
      ...verificationFields,
      tenant: z.object({ display_name: z.string().openapi({ description: "The name the tenant declared for itself (not checked by the issuer)." }) }),
      verdict: z.object(verdictFields),
    }),
  })
  .openapi("CertificatePayloadV1", { description: "A certificate payload of `schema_version` 1 (signed before version 2); verifiers still read it." });

export const CertificateSchema = z
  .object({
    certificate: z.string().openapi({
      description: "The certificate: a compact JWS (JWT, `typ: verification-certificate+jwt`, `alg: EdDSA`, Ed25519) over `payload`. Verify it against `jwks_url`.",
      example: "eyJhbGciOiJFZERTQSIsImtpZCI6IjNxR…",
    }),
    jwks_url: z.string().openapi({ example: "https://verify.example.com/.well-known/jwks.json" }),
    kid: z.string().openapi({ description: "The signing key's id (RFC 7638 thumbprint), as in the JWS header." }),
    sequence: z.int().min(1),
    issued_at: DateTime,
    expires_at: DateTime.openapi({ description: "`payload.exp`: after it the certificate no longer verifies; fetch a current one." }),
    payload: CertificatePayloadSchema.openapi({ description: "The JWS payload, decoded for convenience: trust it only after verifying `certificate`." }),
  })
  .openapi("Certificate");

export const JwkSchema = z
  .object({
    kty: z.literal("OKP"),
    crv: z.literal("Ed25519"),
    x: z.string(),
    kid: z.string(),
    alg: z.literal("EdDSA"),
    use: z.literal("sig"),
  })
  .openapi("Jwk");

export const JwksSchema = z
  .object({ keys: z.array(JwkSchema).openapi({ description: "The current key and every earlier key that signed a certificate (not withdrawn)." }) })
  .openapi("Jwks");

export const CertificateLinkSchema = z
  .object({
    id: z.string().openapi({ example: "certlink_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    verification_id: VerificationId,
    created_by: z.string().openapi({ description: "The dashboard user (`usr_…`) or API key (`key_…`) that made it." }),
    created_at: DateTime,
    revoked_at: DateTime.optional(),
  })
  .openapi("CertificateLink");

export const CreatedCertificateLinkSchema = z
  .object({
    ...CertificateLinkSchema.shape,
    url: z.string().openapi({
      description: "The link to share: JSON for programs, a page that verifies the certificate for people. Shown only now (the token is stored hashed).",
      example: "https://verify.example.com/v1/certificates/cert_4bQ1…",
    }),
    certificate: CertificateSchema,
  })
  .openapi("CreatedCertificateLink");

export const CertificateLinkListSchema = z.object({ items: z.array(CertificateLinkSchema) }).openapi("CertificateLinkList");

export const CertificateLinkIdParam = z.object({
  id: pathId("id", { example: "certlink_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
});

export const CertificateTokenParam = z.object({
  token: pathId("token", { max: 100, example: "cert_4bQ1x9Zk2LmN8pR3sT5vW7yA0cE2gI4kM6oQ8sU0wY2" }),
});
