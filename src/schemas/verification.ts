import { z } from "@hono/zod-openapi";
import { DateTime, DateTimeInput, pageLimit, VerificationId } from "./common";
import { ReviewSchema } from "./review";
import { StepSchema } from "./steps";
import { CAPTURE_CHANNELS, ContextSchema, DEFAULT_SIGNALS_IN_WORDS, SIGNALS } from "./verification-create";
import { AI_METHOD_PATTERN, NOT_ASSESSED_REASONS, REVERSE_SOURCES } from "../analysis/evidence";
import { aiMethodsInWords } from "./ai-methods";

/* Response shapes, for the OpenAPI document. Handlers build these objects in model/verification/present.ts. */

export const VERDICT_LABELS = ["verified", "suspicious", "failed"] as const;
export const STATUSES = ["pending", "partially_captured", "completed", "expired", "failed", "abandoned"] as const;

export const ConfigSchema = z
  .object({
    max_captures: z.int().min(1).max(20),
    steps: z.array(StepSchema),
    signals_required: z.array(z.enum(SIGNALS)),
    signals_default: z
      .object({
        left_out: z.array(z.object({ signal: z.enum(SIGNALS), reason: z.string(), enable: z.string().optional() })),
      })
      .optional()
      .openapi({
        description:
          `Present when the creation named no \`signals_required\`: the service chose them, the channel's default set (${DEFAULT_SIGNALS_IN_WORDS}) limited to what this ` +
          "deployment assesses on the capture channel; `left_out` names each default signal it could not, why and what enables it (`GET /v1/capabilities`).",
      }),
    capture_channel: z.enum(CAPTURE_CHANNELS).optional().openapi({ description: "Echo of the creation's `capture_channel` (absent: the hosted capture page)." }),
    mode: z.enum(["verification", "audit"]).optional(),
    context: ContextSchema.optional(),
    webhook_url: z.url().optional(),
    notify_email: z.email().optional(),
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

const Confidence = z.number().min(0).max(1);
const Unit = z.number().min(0).max(1);

const AiDetectionSchema = z
  .object({
    label: z.enum(["likely_human", "likely_ai", "unknown"]),
    confidence: Confidence,
    method: z.string().regex(AI_METHOD_PATTERN).openapi({
      description:
        `What decided it: ${aiMethodsInWords()}. Of the live capture the combined value comes from ` +
        "(the strongest `likely_ai`, else the least confident). Verdicts written before it existed read `provenance`. Which methods a deployment runs: `GET /v1/capabilities`, `signals.ai.methods`.",
      example: "provenance",
    }),
    evidence: z
      .array(z.object({ code: z.string(), value: z.union([z.number(), z.string(), z.boolean()]).optional() }))
      .optional()
      .openapi({
        description:
          "What that capture's methods saw, the deciding one first: codes and values, no free text (docs/signals.md): provenance codes such as `c2pa_generated_source_type` or " +
          "`no_generator_marker` (its value: how complete the camera metadata is), or a configured provider's `ai_provider_score`. Absent on verdicts written before it existed.",
        example: [{ code: "no_generator_marker", value: 0.4 }],
      }),
  })
  .openapi("AiDetection");

export const VerdictSchema = z
  .object({
    label: z.enum(VERDICT_LABELS),
    score: z.number().min(0).max(1),
    signals: z.object({
      screen_detection: z.union([z.object({ screen_detected: z.boolean(), confidence: Confidence }), NotApplicable, NotAssessed]).optional(),
      ai_detection: z.union([AiDetectionSchema, NotApplicable, NotAssessed]).optional(),
      reverse_search: z
        .union([
          z.object({
            found_online: z.boolean().openapi({ description: "True only for a match the web search found." }),
            match_count: z.int().min(0),
            sources: z.array(z.enum(REVERSE_SOURCES)).optional().openapi({
              description:
                "What every live capture was searched in: `service_history` (this tenant's verifications), `shared_history` (the tenants sharing a reuse index with it: " +
                "opt-in, `PATCH /v1/tenant/settings {share_reuse_index}`), `web` (a configured web search). Absent on verdicts written before it existed.",
            }),
          }),
          NotApplicable,
          NotAssessed,
        ])
        .optional(),
      depth: z
        .union([
          z.object({
            source: z.string(),
            confidence: Confidence.openapi({
              description: "How strongly the evidence shows a real scene before a live camera (not the confidence in an anomaly): below 0.25 the signal tripped.",
            }),
          }),
          NotApplicable,
          NotAssessed,
        ])
        .optional(),
      context_match: z.union([z.object({ status: z.enum(["match", "mismatch", "inconclusive"]), confidence: Confidence }), NotApplicable, NotAssessed]).optional(),
    }),
    reason_code: z
      .enum(["screen_detected", "ai_generated", "context_mismatch", "reverse_search_match", "depth_anomaly", "not_assessed"])
      .optional()
      .openapi({ description: "`not_assessed` (an extension of the spec's enum): a required signal could not be assessed and nothing tripped." }),
    assessment: z.enum(["complete", "partial", "none"]).openapi({
      description:
        "`complete`: every required signal was evaluated; `partial`: some could not be assessed on a live capture (listed in `not_assessed`); " +
        "`none`: nothing was evaluated (every signal not applicable, as for uploads or audit mode, none required, or none could be assessed). The label follows the spec either way.",
    }),
    not_assessed: z.array(z.string()).openapi({ description: "The `signals` keys that could not be assessed." }),
  })
  .openapi("Verdict");

const Concerns = z.array(z.string().min(1).max(300)).max(12);
const Dimension = z.object({ score: Unit, evidence: z.string().min(1).max(1000), concerns: Concerns.optional() });

export const CaseAnalysisSchema = z
  .object({
    overall_risk_score: Unit,
    confidence: Unit,
    dimensions: z.object({
      narrative_image_match: Dimension.optional(),
      cross_image_consistency: Dimension,
      physical_plausibility: Dimension,
    }),
    review_priority: z.enum(["low", "medium", "high"]),
    uncertainty_areas: Concerns,
    model: z.string().min(1).max(200),
    rubric_version: z.int().min(1).max(10).optional(),
    consistency_level: Unit.optional(),
    analysis: z
      .array(
        z.object({
          capture_id: z.string().min(1).max(64),
          ai: z.enum(["low", "medium", "high"]).openapi({
            description:
              "How strongly the capture's `ai_detection` points to a generated image: `likely_ai` at confidence ≥ 0.85 is `high`, below it `medium`, anything else `low`. " +
              "`low` includes a capture whose `ai_detection` is `unknown` (nothing decided it): `uncertainty_areas` then says how many captures were not checked.",
          }),
          screen: z.boolean(),
        }),
      )
      .max(25)
      .optional(),
    text_analysis: z.string().min(1).max(2000).optional(),
  })
  .openapi("CaseAnalysis");

const Point = z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) });

export const LocationMatchSchema = z
  .object({
    status: z.enum(["verified", "no_match", "ungeocoded", "rejected"]).openapi({
      description: "`verified`: the capture is within `tolerance_m` of the address; `no_match`: farther; `ungeocoded`: no comparison (address unresolvable or no GPS fix); `rejected`: the device reported a mock location.",
    }),
    expected_location: z.string(),
    observed_location: z.string().nullable().openapi({ description: "The fix compared, in words (null without one)." }),
    expected_point: Point.nullable(),
    observed_point: Point.nullable(),
    distance_m: z.int().min(0).nullable(),
    tolerance_m: z.int().min(0).nullable().openapi({ description: "The radius the distance was compared with: the largest of 100 m, twice the fix's accuracy and the address's uncertainty." }),
    source: z.enum(["device", "exif"]).nullable().openapi({ description: "Where the fix came from: the capture request's `location` (device) or the photo's EXIF GPS." }),
  })
  .openapi("LocationMatch");

export const ConditionSchema = z
  .union([
    z.object({
      score: z.number().min(0).max(10).openapi({ description: "The one-decimal average of the scored aspects." }),
      label: z.enum(["good", "fair", "poor"]).openapi({ description: "`good` ≥ 7.5, `fair` ≥ 5, otherwise `poor`." }),
      aspects: z.array(z.object({ name: z.string().min(1).max(40), score: z.number().min(0).max(10), reasoning: z.string() })),
      not_assessed: z
        .array(z.object({ name: z.string().min(1).max(40), reasoning: z.string() }))
        .optional()
        .openapi({ description: "Aspects no capture could score (not visible, the provider could not judge): listed here with why, left out of `score`." }),
    }),
    z.object({
      status: z.literal("not_assessed").openapi({ description: "No aspect could be scored (no vision provider, or it could not judge): no invented number." }),
      reason: z.string(),
      aspects: z.array(z.object({ name: z.string().min(1).max(40), reasoning: z.string() })),
    }),
  ])
  .openapi("Condition");

export const AttestationSchema = z
  .object({
    verdict: z.enum(["pass", "fail", "error"]).openapi({ description: "`error`: the token could not be checked (no verifier configured, a timeout): never a pass." }),
    checked_at: DateTime,
    provider: z.string().openapi({ description: "`siteverify` (a Turnstile-compatible endpoint) or `none`." }),
    hostname: z.string().optional(),
    action: z.string().optional(),
    cdata: z.string().optional().openapi({
      description: "The widget's `cData` as siteverify returned it: the capture page binds it to the capture's burst nonce, which the analysis compares (`attestation_not_bound`).",
    }),
    error_codes: z.array(z.string()).optional(),
  })
  .openapi("Attestation", { description: "The browser attestation token's check, recorded on the capture (a signal, not a gate)." });

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
    answers: z.record(z.string(), z.object({ value: z.string().min(1).max(2000), answered_at: DateTime })).optional(),
    record_seal: z
      .object({
        algorithm: z.literal("sha256"),
        hash: z.string().length(64),
        covers: z.array(z.enum(["record", "answers"])),
        answers_provenance: z.literal("user_declared"),
      })
      .optional(),
    captures: z.array(z.object({ id: z.string(), step_key: z.string(), created_at: DateTime, attestation: AttestationSchema.optional() })),
    submitted_at: DateTime.optional(),
    completed_at: DateTime.optional(),
    failure_reason: z.string().optional().openapi({
      description:
        "Why the verification failed (status `failed`): a code, then for some a `: ` and a detail. `no_evidence`: submitted with no capture (every evidence step optional), so nothing was evaluated; `unreadable_evidence`: no live capture is an image any decoder can read; `analysis_failed`: the evidence could not be analysed (after retries); `redacted`: the evidence was complete but erased (redaction) before its analysis landed, so no verdict can come.",
      example: "no_evidence",
    }),
    verdict: VerdictSchema.optional(),
    narrative: z.string().min(1).max(2000).optional(),
    case_analysis: CaseAnalysisSchema.optional(),
    object_match: z.object({ status: z.enum(["match", "mismatch", "inconclusive"]), expected_object: z.string() }).optional(),
    location_match: LocationMatchSchema.optional(),
    condition: ConditionSchema.optional(),
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
  limit: pageLimit().optional(),
  cursor: z.string().max(512).optional(),
  status: z.enum(STATUSES).optional(),
  verdict: z.enum(VERDICT_LABELS).optional().openapi({ description: "Only verifications whose verdict has this label." }),
  assessed: z
    .enum(["true", "false"])
    .optional()
    .openapi({
      description:
        "`false`: only verifications whose verdict evaluated nothing (`verdict.assessment: none`: no certificate, whatever its label); `true`: only those whose verdict evaluated something " +
        "(`complete` or `partial`). Verifications without a verdict match neither. `verdict=verified&assessed=true` lists the verified verdicts that were checked.",
    }),
  template_id: z
    .string()
    .regex(/^tpl_[0-9A-HJKMNP-TV-Z]{26}$/, "Expected a tpl_ id.")
    .optional()
    .openapi({ description: "Only verifications started from this link template (any version).", example: "tpl_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
  q: z
    .string()
    .max(200)
    .trim()
    .min(1)
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
  created_gte: DateTimeInput.optional(),
  created_lt: DateTimeInput.optional(),
});

export const PublicVerificationSchema = z
  .object({
    id: VerificationId,
    status: z.enum(STATUSES),
    tenant: z.object({ display_name: z.string() }),
    created_at: DateTime,
    completed_at: DateTime.optional(),
    captures_count: z.int(),
    verdict: z
      .object({ label: z.enum(["verified", "suspicious", "failed"]) })
      .optional()
      .openapi({
        description:
          "Absent until the evidence is analysed, and when the analysis evaluated nothing (`assessment: none`, e.g. only uploaded content): " +
          "nothing evaluated is never a verdict to share.",
      }),
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
