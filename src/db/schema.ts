import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Role } from "../auth/principal";
import type { VerificationConfig } from "../model/verification/config";
import { AI_PROVIDER_SETTINGS } from "../schemas/ai-providers";

/*
 * The system of record. Every timestamp is integer milliseconds since the epoch (UTC); JSON columns
 * hold documents whose shape is owned by the domain module named in their comment.
 */

const json = <T>(name: string) => text(name, { mode: "json" }).$type<T>();

/** A webhook secret rotated out, and until when it still signs. */
export interface RetiringSecret {
  secret: string;
  expires_at: number;
}
const ms = (name: string) => integer(name);

export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  slug: text("slug").notNull().unique(),
  displayName: text("display_name").notNull(),
  /** Standard Webhooks signing secret (`whsec_…`); kept in clear because we must sign with it. */
  webhookSecret: text("webhook_secret").notNull(),
  /**
   * Secrets rotated out, newest first, each signing until its own `expires_at` (ms): a rotation
   * never ends the window an earlier one promised (domain/webhooks/secrets.ts).
   */
  webhookSecretsRetiring: json<RetiringSecret[]>("webhook_secrets_retiring"),
  /** Verifications older than this many days are redacted by the daily retention run; null keeps them. */
  retentionDays: integer("retention_days"),
  /**
   * Opted in to the shared reuse index: its captures are compared with those of every other tenant
   * that opted in, and theirs with its own (reverse search's `shared_history`). Off by default: a
   * tenant's images are otherwise compared with its own verifications only.
   */
  shareReuseIndex: integer("share_reuse_index", { mode: "boolean" }).notNull().default(false),
  /**
   * Which AI-detection provider this tenant's captures are sent to (providers/ai-detection.ts
   * #decideAiProvider): null the deployment's choice, `none` no provider (provenance only), or a
   * provider's name, which must be configured when set and fails closed if it is removed later.
   */
  aiDetectionProvider: text("ai_detection_provider", { enum: AI_PROVIDER_SETTINGS }),
  /**
   * A domain the tenant proved it controls with a DNS TXT record (domain/tenants/domains.ts): what
   * certificates and emails name it by, instead of the display name it typed. Null until proved, and
   * again once a re-check finds the record gone.
   */
  verifiedDomain: text("verified_domain"),
  /** The token of the TXT value that proved it (`<name> TXT "verification-service-domain=<token>"`), re-checked periodically. */
  verifiedDomainToken: text("verified_domain_token"),
  verifiedDomainAt: ms("verified_domain_at"),
  /** When the record was last found (at proof, then by each re-check that found it). */
  verifiedDomainConfirmedAt: ms("verified_domain_confirmed_at"),
  /** When the minutely sweep last tried to re-check it (found, missing or unresolved). */
  verifiedDomainCheckedAt: ms("verified_domain_checked_at"),
  createdAt: ms("created_at").notNull(),
}, (t) => [
  index("tenants_retention_idx").on(t.id).where(sql`retention_days IS NOT NULL`),
  // The verified domains the re-check sweep reads, least recently checked first.
  index("tenants_domain_recheck_idx").on(t.verifiedDomainCheckedAt).where(sql`verified_domain IS NOT NULL`),
  // The opted-in tenants, read by each near-duplicate lookup of an opted-in tenant (db/analyses.ts).
  index("tenants_shared_reuse_idx").on(t.id).where(sql`share_reuse_index = 1`),
]);

/**
 * A tenant's pending claim of a domain (one at a time): the TXT record it must publish, with a token
 * of fresh randomness per claim. Checking it (DNS over HTTPS) moves the domain to the tenant's
 * `verified_domain` and deletes the claim; a new claim replaces the old one.
 */
export const domainClaims = sqliteTable("domain_claims", {
  tenantId: text("tenant_id").primaryKey().references(() => tenants.id),
  domain: text("domain").notNull(),
  token: text("token").notNull(),
  createdAt: ms("created_at").notNull(),
  expiresAt: ms("expires_at").notNull(),
});

/**
 * A person who signs in to the console. What they may do is their membership's in each tenant
 * (`memberships`); `default_tenant_id` is only where a sign-in lands (the tenant last switched to).
 */
export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  defaultTenantId: text("default_tenant_id").notNull().references(() => tenants.id),
  email: text("email"),
  phone: text("phone"),
  displayName: text("display_name"),
  createdAt: ms("created_at").notNull(),
  /** Sessions issued at or before this instant are void in every tenant (moved by logout). */
  sessionsValidAfter: ms("sessions_valid_after"),
}, (t) => [index("users_tenant_idx").on(t.defaultTenantId), uniqueIndex("users_email_idx").on(t.email)]);

export type { Role };

/** A user's place in a tenant: one role each (auth/roles.ts says what each role may do). */
export const memberships = sqliteTable("memberships", {
  tenantId: text("tenant_id").notNull().references(() => tenants.id),
  userId: text("user_id").notNull().references(() => users.id),
  role: text("role").$type<Role>().notNull(),
  /** When the user joined: a session for this tenant issued before it (an earlier membership's) is void. */
  createdAt: ms("created_at").notNull(),
  /** Sessions for this tenant issued at or before this instant are void ("sign out everywhere"). */
  sessionsValidAfter: ms("sessions_valid_after"),
}, (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index("memberships_user_idx").on(t.userId)]);

/**
 * An emailed invitation to join a tenant with a role. The link's token (`ivt_` + 256 bits) is stored
 * only as its SHA-256; a resend replaces it. Open means neither accepted nor revoked.
 */
export const invitations = sqliteTable("invitations", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull().references(() => tenants.id),
  email: text("email").notNull(),
  role: text("role").$type<Role>().notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  /** The dashboard user who invited (or last resent). */
  invitedBy: text("invited_by").notNull(),
  createdAt: ms("created_at").notNull(),
  expiresAt: ms("expires_at").notNull(),
  sentAt: ms("sent_at").notNull(),
  sendCount: integer("send_count").notNull(),
  acceptedAt: ms("accepted_at"),
  acceptedBy: text("accepted_by"),
  revokedAt: ms("revoked_at"),
  /**
   * The invitee followed the link and confirmed, but the address already had an account: the link is
   * spent and the membership waits for that user's next ordinary sign-in (`claimed_by`), which adds it.
   */
  claimedAt: ms("claimed_at"),
  claimedBy: text("claimed_by"),
}, (t) => [
  index("invitations_tenant_idx").on(t.tenantId, t.id),
  // A user's invitations waiting for their sign-in (read by every sign-in).
  index("invitations_claimed_idx").on(t.claimedBy).where(sql`claimed_by IS NOT NULL AND accepted_at IS NULL AND revoked_at IS NULL`),
  // One open invitation per address and tenant, whatever the race.
  uniqueIndex("invitations_open_email_idx").on(t.tenantId, t.email).where(sql`accepted_at IS NULL AND revoked_at IS NULL`),
]);

/**
 * The operator audit log: who did what, to what, when and from where. Append-only: triggers of
 * the migration refuse any UPDATE or DELETE, and redaction leaves it alone. Written in the same D1
 * batch as the change it records (domain/audit/log.ts).
 */
export const auditLog = sqliteTable("audit_log", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  action: text("action").notNull(),
  /** `service`: the service itself (a cron), e.g. dropping a domain whose record is gone. */
  actorType: text("actor_type", { enum: ["user", "api_key", "service"] }).notNull(),
  actorId: text("actor_id").notNull(),
  /** The user's email (or phone), or the key's name, as it was then. */
  actorLabel: text("actor_label"),
  targetType: text("target_type").notNull(),
  targetId: text("target_id").notNull(),
  targetLabel: text("target_label"),
  details: json<Record<string, unknown>>("details"),
  /** The client's address as received (`CF-Connecting-IP`). */
  ip: text("ip"),
  userAgent: text("user_agent"),
  occurredAt: ms("occurred_at").notNull(),
}, (t) => [
  index("audit_log_tenant_idx").on(t.tenantId, t.id),
  index("audit_log_tenant_action_idx").on(t.tenantId, t.action, t.id),
  index("audit_log_tenant_actor_idx").on(t.tenantId, t.actorId, t.id),
]);

/** A sign-in method bound to a user: (`oidc:<issuer>`, sub), (`email`, address), (`phone`, number). */
export const userIdentities = sqliteTable("user_identities", {
  provider: text("provider").notNull(),
  subject: text("subject").notNull(),
  userId: text("user_id").notNull().references(() => users.id),
  createdAt: ms("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.provider, t.subject] })]);

export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull().references(() => tenants.id),
  /** `test` keys (`pk_test_`) work in local and staging, `live` keys (`pk_live_`) in production. */
  environment: text("environment", { enum: ["test", "live"] }).notNull(),
  scope: text("scope", { enum: ["full", "publishable"] }).notNull(),
  /** SHA-256 hex of the whole key: the plaintext is never stored. */
  keyHash: text("key_hash").notNull().unique(),
  /** First characters of the key, shown to operators to tell keys apart. */
  keyPrefix: text("key_prefix").notNull(),
  name: text("name"),
  createdAt: ms("created_at").notNull(),
  lastUsedAt: ms("last_used_at"),
  revokedAt: ms("revoked_at"),
}, (t) => [index("api_keys_tenant_idx").on(t.tenantId)]);

export type VerificationStatus = "pending" | "partially_captured" | "completed" | "expired" | "failed" | "abandoned";

export const verifications = sqliteTable("verifications", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull().references(() => tenants.id),
  status: text("status").$type<VerificationStatus>().notNull(),
  /** Compare-and-swap guard: every write sets it to exactly old + 1 (enforced by a trigger). */
  version: integer("version").notNull(),
  /** Fixed at creation, never updated (see model/verification/config.ts). */
  config: json<VerificationConfig>("config").notNull(),
  sealEnabled: integer("seal_enabled", { mode: "boolean" }).notNull(),
  originChannel: text("origin_channel"),
  templateId: text("template_id"),
  templateVersion: integer("template_version"),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
  expiresAt: ms("expires_at").notNull(),
  capturesCount: integer("captures_count").notNull().default(0),
  submittedAt: ms("submitted_at"),
  /** When the evidence became complete (quota filled and required answers, or submit). */
  readyAt: ms("ready_at"),
  completedAt: ms("completed_at"),
  /** SHA-256 of the canonical record + answers; null when sealing is off or nothing is answered. */
  sealHash: text("seal_hash"),
  verdict: json<unknown>("verdict"),
  objectMatch: json<unknown>("object_match"),
  locationMatch: json<unknown>("location_match"),
  condition: json<unknown>("condition"),
  failureReason: text("failure_reason"),
  narrative: text("narrative"),
  finalizedAt: ms("finalized_at"),
  caseAnalysis: json<unknown>("case_analysis"),
  progress: json<unknown>("progress"),
  /** How often the end user left it unfinished; only the first few are on the timeline (model/verification/transitions.ts). */
  abandonments: integer("abandonments").notNull().default(0),
  /** The latest operator review `{decision, note?, by, at}` (domain/verification/review.ts); each one is on the timeline. */
  review: json<unknown>("review"),
  /** Set once by redaction (model/verification/redaction.ts): the evidence is erased, the row is a tombstone. */
  redactedAt: ms("redacted_at"),
  /**
   * The `webhook_url` was let through unguarded by the local-development gate (`isLocalRequest`: a
   * loopback request to a local deployment). Only then do its deliveries skip the SSRF guard too.
   */
  webhookUnguarded: integer("webhook_unguarded", { mode: "boolean" }).notNull().default(false),
}, (t) => [
  index("verifications_tenant_list_idx").on(t.tenantId, t.id),
  index("verifications_tenant_status_idx").on(t.tenantId, t.status, t.id),
  // What the retention run pages through: a tenant's unredacted verifications, oldest first.
  index("verifications_retention_idx").on(t.tenantId, t.createdAt, t.id).where(sql`redacted_at IS NULL`),
  // List filters (GET /v1/verifications): each is an equality prefix before the keyset column `id`.
  index("verifications_tenant_verdict_idx").on(t.tenantId, sql`(verdict ->> '$.label')`, t.id),
  index("verifications_tenant_assessed_idx").on(t.tenantId, sql`((verdict ->> '$.assessment') = 'none')`, t.id),
  index("verifications_tenant_template_idx").on(t.tenantId, t.templateId, t.id),
  index("verifications_tenant_reviewed_idx").on(t.tenantId, t.id).where(sql`review IS NOT NULL`),
  // Open verifications by expiry, for the minutely sweep (domain/verification/sweep.ts).
  index("verifications_open_expiry_idx").on(t.expiresAt).where(sql`status NOT IN ('completed', 'expired', 'failed') AND ready_at IS NULL`),
  // Evidence complete, no verdict yet, for the minutely straggler sweep (domain/verification/stragglers.ts).
  index("verifications_awaiting_verdict_idx").on(t.readyAt, t.id).where(sql`status NOT IN ('completed', 'expired', 'failed') AND ready_at IS NOT NULL AND redacted_at IS NULL`),
]);

/**
 * Search terms of a verification (`GET /v1/verifications?q=`): each metadata value, lower-cased
 * (ASCII), for prefix lookups. Kept by triggers on `verifications` (migration
 * `0006_console_list_filters`), so every write path, redaction included, keeps it true.
 */
export const verificationSearchTerms = sqliteTable("verification_search_terms", {
  tenantId: text("tenant_id").notNull(),
  term: text("term").notNull(),
  verificationId: text("verification_id").notNull(),
}, (t) => [primaryKey({ columns: [t.tenantId, t.term, t.verificationId] }), index("verification_search_terms_verification_idx").on(t.verificationId)]);

export const captures = sqliteTable("captures", {
  id: text("id").primaryKey(),
  verificationId: text("verification_id").notNull().references(() => verifications.id),
  tenantId: text("tenant_id").notNull(),
  stepKey: text("step_key").notNull(),
  stepType: text("step_type", { enum: ["image", "upload"] }).notNull(),
  /** 1-based order of acceptance within the verification. */
  seq: integer("seq").notNull(),
  imageKey: text("image_key").notNull().unique(),
  contentType: text("content_type").notNull(),
  sizeBytes: integer("size_bytes").notNull(),
  sha256: text("sha256").notNull(),
  surface: text("surface"),
  clientCapturedAt: ms("client_captured_at"),
  location: json<unknown>("location"),
  forensicBufferKey: text("forensic_buffer_key"),
  attestation: json<unknown>("attestation"),
  /** The capture page's capture-integrity record (schemas/capture-integrity.ts): client-reported cues; redaction removes its device label. */
  captureIntegrity: json<unknown>("capture_integrity"),
  createdAt: ms("created_at").notNull(),
}, (t) => [index("captures_verification_idx").on(t.verificationId, t.seq)]);

export const answers = sqliteTable("answers", {
  verificationId: text("verification_id").notNull().references(() => verifications.id),
  stepKey: text("step_key").notNull(),
  value: text("value").notNull(),
  answeredAt: ms("answered_at").notNull(),
  /** How many different values the step has been given (model/verification/answers.ts bounds it). */
  revisions: integer("revisions").notNull().default(1),
}, (t) => [primaryKey({ columns: [t.verificationId, t.stepKey] })]);

/** An upload URL minted for a verification: the capability a signed PUT consumes exactly once. */
export const uploads = sqliteTable("uploads", {
  id: text("id").primaryKey(),
  verificationId: text("verification_id").notNull().references(() => verifications.id),
  kind: text("kind", { enum: ["image", "forensic_buffer"] }).notNull(),
  objectKey: text("object_key").notNull().unique(),
  contentType: text("content_type").notNull(),
  maxBytes: integer("max_bytes").notNull(),
  status: text("status", { enum: ["minted", "uploading", "uploaded"] }).notNull(),
  sizeBytes: integer("size_bytes"),
  sha256: text("sha256"),
  /** Media type sniffed from the stored bytes (null when they match no supported type). */
  sniffedType: text("sniffed_type"),
  expiresAt: ms("expires_at").notNull(),
  /** When the current "uploading" claim was taken: a claim older than 60 s is abandoned and may be retaken. */
  claimedAt: ms("claimed_at"),
  uploadedAt: ms("uploaded_at"),
  createdAt: ms("created_at").notNull(),
}, (t) => [index("uploads_verification_idx").on(t.verificationId)]);

/**
 * Audit timeline and transactional outbox in one: `dispatched_at` null means not yet on the queue, or
 * on it and not yet marked (the verification object journals what it published and marks it with its
 * next commit or, at the latest, its alarm a minute later; a re-drive marks the journal first).
 */
export const events = sqliteTable("events", {
  id: text("id").primaryKey(),
  verificationId: text("verification_id").notNull(),
  tenantId: text("tenant_id").notNull(),
  name: text("name").notNull(),
  payload: json<Record<string, unknown>>("payload"),
  occurredAt: ms("occurred_at").notNull(),
  dispatchedAt: ms("dispatched_at"),
}, (t) => [
  index("events_verification_idx").on(t.verificationId, t.id),
  index("events_undispatched_idx").on(t.verificationId).where(sql`dispatched_at IS NULL`),
]);

export const idempotencyKeys = sqliteTable("idempotency_keys", {
  tenantId: text("tenant_id").notNull(),
  key: text("key").notNull(),
  /** SHA-256 of method, path and canonical body: the same key with another request conflicts. */
  fingerprint: text("fingerprint").notNull(),
  statusCode: integer("status_code").notNull(),
  responseBody: text("response_body").notNull(),
  createdAt: ms("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.tenantId, t.key] })]);

/** Per-capture analysis output (signals with provider, method version and evidence codes). */
export const captureAnalyses = sqliteTable("capture_analyses", {
  captureId: text("capture_id").primaryKey(),
  verificationId: text("verification_id").notNull(),
  status: text("status", { enum: ["completed", "failed"] }).notNull(),
  result: json<unknown>("result"),
  error: text("error"),
  analyzedAt: ms("analyzed_at").notNull(),
  /** The evidence thumbnail written during the analysis `{key, sha256, width, height}`; null when pixels could not be decoded. */
  thumbnail: json<unknown>("thumbnail"),
}, (t) => [index("capture_analyses_verification_idx").on(t.verificationId)]);

/**
 * Perceptual-hash index of every stored image, for near-duplicate lookups: one row per region of
 * the image (the whole frame and the crop windows of analysis/signals/perceptual-hash.ts). Multi-index
 * hashing: the 64-bit pHash is cut into four 16-bit bands; any two hashes within the radius share a
 * band within one bit, so each band is an equality lookup on its own index.
 */
export const imageHashes = sqliteTable("image_hashes", {
  captureId: text("capture_id").notNull(),
  region: text("region").notNull().default("full"),
  verificationId: text("verification_id").notNull(),
  tenantId: text("tenant_id").notNull(),
  algorithm: text("algorithm").notNull(),
  hash: text("hash").notNull(),
  /** The confirming dHash (null on rows of the first algorithm, which had only one hash). */
  aux: text("aux"),
  band0: integer("band0").notNull(),
  band1: integer("band1").notNull(),
  band2: integer("band2").notNull(),
  band3: integer("band3").notNull(),
  createdAt: ms("created_at").notNull(),
}, (t) => [
  primaryKey({ columns: [t.captureId, t.region] }),
  index("image_hashes_band0_idx").on(t.algorithm, t.region, t.band0),
  index("image_hashes_band1_idx").on(t.algorithm, t.region, t.band1),
  index("image_hashes_band2_idx").on(t.algorithm, t.region, t.band2),
  index("image_hashes_band3_idx").on(t.algorithm, t.region, t.band3),
]);

/**
 * The burst replay index: a digest of each frame of every live capture's burst (flat frames left
 * out), so a burst sent again, whole or in part, is found among the tenant's captures
 * (analysis/burst/replay.ts). A camera's noise never lets two genuine frames match.
 */
export const burstFrames = sqliteTable("burst_frames", {
  tenantId: text("tenant_id").notNull(),
  digest: text("digest").notNull(),
  captureId: text("capture_id").notNull(),
  verificationId: text("verification_id").notNull(),
  createdAt: ms("created_at").notNull(),
}, (t) => [
  primaryKey({ columns: [t.tenantId, t.digest, t.captureId] }),
  index("burst_frames_capture_idx").on(t.captureId),
]);

export const webhookDeliveries = sqliteTable("webhook_deliveries", {
  id: text("id").primaryKey(),
  /** One delivery per event: the event id is the `webhook-id` on every attempt. */
  eventId: text("event_id").notNull().unique(),
  verificationId: text("verification_id").notNull(),
  tenantId: text("tenant_id").notNull(),
  eventType: text("event_type").notNull(),
  url: text("url").notNull(),
  /** The exact body signed and sent; fixed at creation so retries carry the same bytes. */
  payload: text("payload").notNull(),
  status: text("status", { enum: ["pending", "succeeded", "failed"] }).notNull(),
  attempts: integer("attempts").notNull().default(0),
  lastStatusCode: integer("last_status_code"),
  lastError: text("last_error"),
  nextAttemptAt: ms("next_attempt_at"),
  deliveredAt: ms("delivered_at"),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
  /** Copied from the verification's `webhook_unguarded`: the SSRF guard is skipped only for such a delivery in a local deployment. */
  unguarded: integer("unguarded", { mode: "boolean" }).notNull().default(false),
}, (t) => [
  index("webhook_deliveries_verification_idx").on(t.verificationId, t.id),
  // Recent deliveries across the tenant's verifications (GET /v1/webhook-deliveries), newest first.
  index("webhook_deliveries_tenant_idx").on(t.tenantId, t.id),
  index("webhook_deliveries_tenant_status_idx").on(t.tenantId, t.status, t.id),
  // Also `webhook_deliveries_pending_due_idx` on (coalesce(next_attempt_at, created_at)) WHERE status = 'pending',
  // for the minutely sweep of lost delivery messages (domain/webhooks/stuck.ts): hand-written in
  // migration 0008_faults, because drizzle-kit splits an expression index at its comma.
]);

export const webhookAttempts = sqliteTable("webhook_attempts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  deliveryId: text("delivery_id").notNull().references(() => webhookDeliveries.id),
  attempt: integer("attempt").notNull(),
  statusCode: integer("status_code"),
  latencyMs: integer("latency_ms").notNull(),
  error: text("error"),
  attemptedAt: ms("attempted_at").notNull(),
  nextAttemptAt: ms("next_attempt_at"),
}, (t) => [uniqueIndex("webhook_attempts_delivery_attempt_idx").on(t.deliveryId, t.attempt)]);

export const linkTemplates = sqliteTable("link_templates", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull().references(() => tenants.id),
  slug: text("slug").notNull(),
  name: text("name").notNull(),
  mode: text("mode", { enum: ["verification", "audit"] }).notNull(),
  status: text("status", { enum: ["active", "revoked"] }).notNull(),
  version: integer("version").notNull(),
  /** The current version's creation spec (steps, expiry and config fields). */
  spec: json<Record<string, unknown>>("spec").notNull(),
  startedTotal: integer("started_total").notNull().default(0),
  startedToday: integer("started_today").notNull().default(0),
  /** UTC day (YYYY-MM-DD) that `started_today` counts. */
  startedDay: text("started_day"),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
}, (t) => [uniqueIndex("link_templates_tenant_slug_idx").on(t.tenantId, t.slug)]);

export const linkTemplateVersions = sqliteTable("link_template_versions", {
  templateId: text("template_id").notNull().references(() => linkTemplates.id),
  version: integer("version").notNull(),
  name: text("name").notNull(),
  mode: text("mode").notNull(),
  spec: json<Record<string, unknown>>("spec").notNull(),
  createdAt: ms("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.templateId, t.version] })]);

export const magicLinks = sqliteTable("magic_links", {
  id: text("id").primaryKey(),
  email: text("email").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  /** Where the browser lands once signed in (a path of this service, e.g. a console page). */
  returnTo: text("return_to"),
  expiresAt: ms("expires_at").notNull(),
  usedAt: ms("used_at"),
  createdAt: ms("created_at").notNull(),
});

export const otpCodes = sqliteTable("otp_codes", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  phone: text("phone").notNull(),
  codeHash: text("code_hash").notNull(),
  attempts: integer("attempts").notNull().default(0),
  expiresAt: ms("expires_at").notNull(),
  usedAt: ms("used_at"),
  createdAt: ms("created_at").notNull(),
});

/**
 * Phones an operator registered for their tenant: the bot may issue sign-in codes (`POST /v1/bot/otp`)
 * only for these, and a code signs in only while its phone stays registered.
 */
export const tenantPhones = sqliteTable("tenant_phones", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull().references(() => tenants.id),
  /** E.164, e.g. `+447700900123`. */
  phone: text("phone").notNull(),
  label: text("label"),
  /** The dashboard user who registered it. */
  registeredBy: text("registered_by").notNull(),
  createdAt: ms("created_at").notNull(),
}, (t) => [uniqueIndex("tenant_phones_tenant_phone_idx").on(t.tenantId, t.phone)]);

/** Signatures the bot already used, refused on replay until they fall out of the tolerance window. */
export const botNonces = sqliteTable("bot_nonces", {
  signature: text("signature").primaryKey(),
  expiresAt: ms("expires_at").notNull(),
});

/** Emails and messages sent (or, in local development, only recorded) to people. */
export const outboundMessages = sqliteTable("outbound_messages", {
  id: text("id").primaryKey(),
  /** Makes a notification at-most-once per cause, e.g. `email:<event id>`. */
  dedupeKey: text("dedupe_key").notNull().unique(),
  channel: text("channel", { enum: ["email", "whatsapp"] }).notNull(),
  recipient: text("recipient").notNull(),
  subject: text("subject"),
  body: text("body").notNull(),
  verificationId: text("verification_id"),
  provider: text("provider").notNull(),
  status: text("status", { enum: ["sent", "recorded", "failed"] }).notNull(),
  error: text("error"),
  createdAt: ms("created_at").notNull(),
}, (t) => [index("outbound_messages_verification_idx").on(t.verificationId)]);

export const queueFailures = sqliteTable("queue_failures", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  queue: text("queue").notNull(),
  messageId: text("message_id").notNull(),
  body: text("body").notNull(),
  createdAt: ms("created_at").notNull(),
});

export const geocodeCache = sqliteTable("geocode_cache", {
  query: text("query").primaryKey(),
  result: json<unknown>("result"),
  createdAt: ms("created_at").notNull(),
});

/**
 * Signed certificates (domain/certificates): one row per issue, `sequence` 1, 2, … per verification.
 * A new one is signed only for a later state of the verification (`state_version`, its row version)
 * whose certified content differs (`content_sha256`), or to replace a signature by a withdrawn key.
 */
export const certificates = sqliteTable("certificates", {
  verificationId: text("verification_id").notNull(),
  sequence: integer("sequence").notNull(),
  tenantId: text("tenant_id").notNull(),
  /** The verification's `version` the certificate was made from. */
  stateVersion: integer("state_version").notNull(),
  /** SHA-256 of the canonical JSON of the certified content (the payload without `iat` and `sequence`). */
  contentSha256: text("content_sha256").notNull(),
  kid: text("kid").notNull(),
  /** The compact JWS as issued. */
  jws: text("jws").notNull(),
  issuedAt: ms("issued_at").notNull(),
}, (t) => [primaryKey({ columns: [t.verificationId, t.sequence] })]);

/**
 * The public half of every key that signed a certificate, recorded with its first signature: the
 * JWKS publishes them all (beside the current key), so a rotation never leaves a certificate without
 * its key. `withdrawn_at` takes a key out of the JWKS (a compromised key).
 */
export const certificateKeys = sqliteTable("certificate_keys", {
  kid: text("kid").primaryKey(),
  /** The public JWK (`kty`, `crv`, `x`); never a private part. */
  publicJwk: json<Record<string, string>>("public_jwk").notNull(),
  createdAt: ms("created_at").notNull(),
  withdrawnAt: ms("withdrawn_at"),
});

/** Share links of a verification's certificate: the token in the URL rests only as its SHA-256. */
export const certificateLinks = sqliteTable("certificate_links", {
  id: text("id").primaryKey(),
  verificationId: text("verification_id").notNull().references(() => verifications.id),
  tenantId: text("tenant_id").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  /** Who made it: `usr_…` (dashboard) or `key_…` (API key). */
  createdBy: text("created_by").notNull(),
  createdAt: ms("created_at").notNull(),
  revokedAt: ms("revoked_at"),
}, (t) => [index("certificate_links_verification_idx").on(t.verificationId, t.id)]);
