import { z } from "@hono/zod-openapi";
import { DateTime, VerificationId } from "./common";
import { ReviewSchema } from "./review";
import { StepSchema } from "./steps";
import { ContextSchema, SIGNALS } from "./verification-create";
import { NOT_ASSESSED_REASONS } from "../analysis/evidence";

/* Response shapes, for the OpenAPI document. Handlers build these objects in model/verification/present.ts. */

export const VERDICT_LABELS = ["verified", "suspicious", "failed"] as const;
export const STATUSES = ["pending", "partially_captured", "completed", "expired", "failed", "abandoned"] as const;

export const ConfigSchema = z
  .object({
    max_captures: z.int().min(1).max(20),
    steps: z.array(StepSchema),
    signals_required: z.array(z.enum(SIGNALS)),
    mode: z.enum(["verification", "audit"]).optional(),
    context: ContextSchema.optional(),
    webhook_url: z.string().optional(),
    notify_email: z.string().optional(),
    metadata: z.record(z.string(), z.string()).optional(),
    expected_location: z.string().optional(),
    expected_object: z.string().optional(),
    condition_aspects: z.array(z.string()).optional(),
  })
  .openapi("Config");

const NotApplicable = z.object({ status: z.literal("not_applicable"), reason: z.literal("uploaded_content") });
/** Extension (CONTRACT.md "Extensions"): a required signal that could not be assessed. */
const NotAssessed = z
  .object({ status: z.literal("not_assessed"), reason: z.enum(NOT_ASSESSED_REASONS) })
  .openapi("NotAssessed", { description: "A required signal that could not be assessed; the label is then not `verified` (docs/signals.md)." });

export const VerdictSchema = z
  .object({
    label: z.enum(VERDICT_LABELS),
    score: z.number().min(0).max(1),
    signals: z.object({
      screen_detection: z.union([z.object({ screen_detected: z.boolean(), confidence: z.number() }), NotApplicable, NotAssessed]).optional(),
      ai_detection: z.union([z.object({ label: z.enum(["likely_human", "likely_ai", "unknown"]), confidence: z.number() }), NotApplicable, NotAssessed]).optional(),
      reverse_search: z.union([z.object({ found_online: z.boolean(), match_count: z.int() }), NotApplicable, NotAssessed]).optional(),
      depth: z.union([z.object({ source: z.string(), confidence: z.number() }), NotApplicable, NotAssessed]).optional(),
      context_match: z.union([z.object({ status: z.enum(["match", "mismatch", "inconclusive"]), confidence: z.number() }), NotApplicable, NotAssessed]).optional(),
    }),
    reason_code: z
      .enum(["screen_detected", "ai_generated", "context_mismatch", "reverse_search_match", "depth_anomaly", "not_assessed"])
      .optional()
      .openapi({ description: "`not_assessed` (an extension of the spec's enum): a required signal could not be assessed and nothing tripped." }),
    assessment: z.enum(["complete", "partial"]).openapi({ description: "`partial` when a required signal could not be assessed on a live capture." }),
    not_assessed: z.array(z.string()).openapi({ description: "The `signals` keys that could not be assessed." }),
  })
  .openapi("Verdict");

const Dimension = z.object({ score: z.number(), evidence: z.string(), concerns: z.array(z.string()).optional() });

export const CaseAnalysisSchema = z
  .object({
    overall_risk_score: z.number(),
    confidence: z.number(),
    dimensions: z.object({
      narrative_image_match: Dimension.optional(),
      cross_image_consistency: Dimension,
      physical_plausibility: Dimension,
    }),
    review_priority: z.enum(["low", "medium", "high"]),
    uncertainty_areas: z.array(z.string()),
    model: z.string(),
    rubric_version: z.int().optional(),
    consistency_level: z.number().optional(),
    analysis: z.array(z.object({ capture_id: z.string(), ai: z.enum(["low", "medium", "high"]), screen: z.boolean() })).optional(),
    text_analysis: z.string().optional(),
  })
  .openapi("CaseAnalysis");

export const VerificationSchema = z
  .object({
    id: VerificationId,
    status: z.enum(STATUSES),
    capture_url: z.url(),
    created_at: DateTime,
    expires_at: DateTime,
    template: z
      .object({ id: z.string().openapi({ example: "tpl_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }), version: z.int().min(1) })
      .optional()
      .openapi({ description: "The link template (and its version) this verification was started from." }),
    captures_count: z.int().min(0),
    config: ConfigSchema,
    answers: z.record(z.string(), z.object({ value: z.string(), answered_at: DateTime })).optional(),
    record_seal: z
      .object({
        algorithm: z.literal("sha256"),
        hash: z.string().length(64),
        covers: z.array(z.enum(["record", "answers"])),
        answers_provenance: z.literal("user_declared"),
      })
      .optional(),
    captures: z.array(z.object({ id: z.string(), step_key: z.string(), created_at: DateTime, attestation: z.record(z.string(), z.unknown()).optional() })),
    submitted_at: DateTime.optional(),
    completed_at: DateTime.optional(),
    failure_reason: z.string().optional().openapi({ description: "Why the verification failed (status `failed`), e.g. the evidence could not be analysed." }),
    verdict: VerdictSchema.optional(),
    narrative: z.string().optional(),
    case_analysis: CaseAnalysisSchema.optional(),
    object_match: z.object({ status: z.enum(["match", "mismatch", "inconclusive"]), expected_object: z.string() }).optional(),
    location_match: z.record(z.string(), z.unknown()).optional(),
    condition: z.record(z.string(), z.unknown()).optional(),
    progress: z.record(z.string(), z.unknown()).optional().openapi({ description: "Operator (session) reads only." }),
    review: ReviewSchema.optional().openapi({ description: "The latest operator review; the machine `verdict` never changes. Every review is on the timeline." }),
    redacted_at: DateTime.optional().openapi({
      description: "Set once the evidence was erased (redaction or retention): ids, statuses, timestamps, digests and the verdict remain.",
    }),
  })
  .openapi("Verification");

export const VerificationListSchema = z
  .object({ items: z.array(VerificationSchema), next_cursor: z.string().optional() })
  .openapi("VerificationList");

export const ListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: z.string().max(512).optional(),
  status: z.enum(STATUSES).optional(),
  verdict: z.enum(VERDICT_LABELS).optional().openapi({ description: "Only verifications whose verdict has this label." }),
  template_id: z
    .string()
    .regex(/^tpl_[0-9A-HJKMNP-TV-Z]{26}$/, "Expected a tpl_ id.")
    .optional()
    .openapi({ description: "Only verifications started from this link template (any version).", example: "tpl_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({
      description:
        "Search: a verification id (`vfy_…`) or capture id (`cap_…`) finds that verification; any other text finds the verifications with a " +
        "`metadata` value starting with it (ASCII case-insensitive), e.g. a claim number.",
      example: "CLM-2093",
    }),
  has_review: z
    .enum(["true", "false"])
    .optional()
    .openapi({ description: "`true`: only verifications an operator reviewed (`review` present); `false`: only those not reviewed yet." }),
  created_gte: z.iso.datetime({ offset: true }).optional(),
  created_lt: z.iso.datetime({ offset: true }).optional(),
});

export const PublicVerificationSchema = z
  .object({
    id: VerificationId,
    status: z.enum(STATUSES),
    tenant: z.object({ display_name: z.string() }),
    created_at: DateTime,
    completed_at: DateTime.optional(),
    captures_count: z.int(),
    verdict: z.object({ label: z.enum(["verified", "suspicious", "failed"]) }).optional(),
  })
  .openapi("PublicVerification");

export const AuditEventSchema = z
  .object({
    event_id: z.string(),
    event_name: z.string(),
    occurred_at: DateTime,
    payload: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("AuditEvent");
