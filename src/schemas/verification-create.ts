import { z } from "@hono/zod-openapi";
import { noBidi, prose, singleLine, tenantMap } from "./common";
import { MEDIA_TYPES, StepInputSchema } from "./steps";

export const SIGNALS = ["screen", "ai", "reverse", "context", "depth"] as const;
export type SignalName = (typeof SIGNALS)[number];
/** The contract's default set; a creation gets it limited to what the deployment assesses (analysis/capabilities.ts). */
export const DEFAULT_SIGNALS: readonly SignalName[] = ["screen", "ai", "reverse"];
/**
 * How the evidence will arrive: the hosted capture page (`capture_url`; template links, the bot and
 * the trial too) or the tenant's own client calling the capture-flow API, which alone can send a
 * depth map (`forensic_buffer_key`).
 */
export const CAPTURE_CHANNELS = ["hosted_page", "api"] as const;
export type CaptureChannel = (typeof CAPTURE_CHANNELS)[number];
/**
 * The default set per channel (CONTRACT.md, fourth release): a hosted-page verification also asks
 * for `depth`, assessed from the capture page's capture-integrity record, where the deployment
 * assesses it; the API channel keeps the contract's set (its depth needs a depth map).
 */
export const DEFAULT_SIGNALS_BY_CHANNEL: Record<CaptureChannel, readonly SignalName[]> = {
  hosted_page: [...DEFAULT_SIGNALS, "depth"],
  api: DEFAULT_SIGNALS,
};
/** The default sets as the API document words them, from the sets themselves. */
export const DEFAULT_SIGNALS_IN_WORDS = (Object.entries(DEFAULT_SIGNALS_BY_CHANNEL) as Array<[CaptureChannel, readonly SignalName[]]>)
  .map(([channel, set]) => `\`${channel}\`: ${set.map((s) => `\`${s}\``).join(", ")}`)
  .join("; ");
export const MAX_TOTAL_CAPTURES = 20;
export const DEFAULT_EXPIRES_IN_SECONDS = 604_800;
export const MAX_EXPIRES_IN_SECONDS = 2_592_000;

/**
 * A map's key bounds in the document as the record enforces them: JSON Schema's `propertyNames`
 * (OpenAPI 3.1), which zod-openapi's metadata type does not list, so a schema validator refuses the
 * keys the service refuses.
 */
const keyBounds = (minLength: number, maxLength: number): object => ({ propertyNames: { type: "string", minLength, maxLength } });

/** `context.attributes` bounds: the vision prompt and every stored copy stay small. */
export const MAX_CONTEXT_ATTRIBUTES = 50;
export const MAX_CONTEXT_ATTRIBUTES_BYTES = 8 * 1024;

const ContextAttributesSchema = tenantMap(
  z
    .record(z.string().min(1).max(64), z.union([z.string().max(500), z.number(), z.boolean()]))
    .superRefine((attributes, ctx) => {
      if (Object.keys(attributes).length > MAX_CONTEXT_ATTRIBUTES) {
        ctx.addIssue({ code: "custom", message: `At most ${MAX_CONTEXT_ATTRIBUTES} attributes.` });
      } else if (new TextEncoder().encode(JSON.stringify(attributes)).byteLength > MAX_CONTEXT_ATTRIBUTES_BYTES) {
        ctx.addIssue({ code: "custom", message: `At most ${MAX_CONTEXT_ATTRIBUTES_BYTES} bytes as JSON.` });
      }
    })
    .openapi({
      description: `Up to ${MAX_CONTEXT_ATTRIBUTES} keys (1..64 chars), ${MAX_CONTEXT_ATTRIBUTES_BYTES} bytes as JSON in total.`,
      maxProperties: MAX_CONTEXT_ATTRIBUTES,
      ...keyBounds(1, 64),
    }),
);

/**
 * A receiver's URL: http(s), and a URI as the API document declares it. An IRI (`http://exämple.com/`)
 * passed `z.url()` and was echoed back as given, which broke every response and list page holding it
 * (API probe of 2026-12-04); its ASCII form is what to send.
 */
export const WebhookUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .refine((url) => /^[\x21-\x7e]+$/.test(url), {
    message: "Not a URI: write the host in its ASCII (punycode) form and percent-encode other characters, as new URL(value).href does.",
  });

export const ContextSchema = z
  .strictObject({
    kind: z.string().min(1).max(64),
    summary: z.string().min(1).max(500),
    attributes: ContextAttributesSchema.optional(),
  })
  .openapi("Context");

const MetadataSchema = tenantMap(
  z
    .record(noBidi(singleLine(z.string().min(1).max(40))), prose(z.string().max(500)))
    .refine((m) => Object.keys(m).length <= 50, { message: "At most 50 metadata keys." })
    .openapi({
      description:
        "Up to 50 string keys (1..40 chars, one line, no bidirectional controls) with string values (up to 500 chars; lines and tabs kept, other control characters such as NUL and escape sequences refused).",
      maxProperties: 50,
      ...keyBounds(1, 40),
    }),
);

/** The fields of a verification's config that a creation request (or a link template) may carry. */
export const ConfigFieldsSchema = z.strictObject({
  max_captures: z.int().min(1).max(MAX_TOTAL_CAPTURES).optional().openapi({
    description: "Sugar for one image step `capture_1` with min = max = N. Exactly one of `max_captures` or `steps`.",
  }),
  steps: z.array(StepInputSchema).min(1).max(50).optional(),
  signals_required: z
    .array(z.enum(SIGNALS))
    // Nothing evaluated is never a verdict: an empty list would read `verified` with nothing checked.
    .min(1, "Name at least one signal (or leave signals_required out for the default set): a verdict with nothing evaluated is never a verdict.")
    .max(SIGNALS.length)
    .optional()
    .openapi({
      description:
        `Defaults to the channel's set (${DEFAULT_SIGNALS_IN_WORDS}), limited to what this deployment assesses on the capture channel (\`GET /v1/capabilities\`; the config then carries \`signals_default\`), ` +
        "plus `context` when a `context` is given. At least one: an empty list is 400 `invalid_request` (nothing evaluated is never a verdict). " +
        "A signal the deployment or the channel cannot assess is 400 `invalid_request` naming it (`signals_required.<i>`) and what enables it.",
    }),
  mode: z
    .enum(["verification", "audit"])
    .optional()
    .openapi({
      description:
        "`audit`: the evidence is existing content (SPEC): an existing file fills each image step, analysed as uploaded content (its signals `not_applicable`), and the capture page asks for files, not the camera.",
    }),
  context: ContextSchema.optional().openapi({
    description:
      "Always cross-checked against the captures (the `context` signal, `context_match`): left out, `signals_required` gains `context`; given, it must include it " +
      "(400 naming `context` otherwise). Where no vision provider is configured a context is 400 too (`GET /v1/capabilities`).",
  }),
  webhook_url: WebhookUrlSchema.optional(),
  notify_email: z.email().max(254).optional(),
  metadata: MetadataSchema.optional(),
  expected_location: z.string().max(500).trim().min(1).optional(),
  expected_object: z.string().max(500).trim().min(1).optional(),
  condition_aspects: z.array(z.string().max(40).trim().min(1)).min(1).max(6).optional(),
});

/** Creation fields before the cross-field rules (for schemas that add fields, e.g. the bot's `tenant_id`). */
export const CreateVerificationFieldsSchema = ConfigFieldsSchema.extend({
  capture_channel: z.enum(CAPTURE_CHANNELS).optional().openapi({
    description:
      "How the evidence will arrive (default `hosted_page`): the hosted capture page at `capture_url`, or `api`, your own client calling the capture-flow " +
      "operations. `depth` is assessed on `hosted_page` from the capture page's capture-integrity record (`source: capture_burst`), on `api` from a depth map (`forensic_buffer_key`).",
  }),
  seal: z.boolean().optional().openapi({ description: "Record seal over the answers; on unless false." }),
  expires_in_seconds: z.int().min(1).max(MAX_EXPIRES_IN_SECONDS).optional().openapi({ description: "Defaults to 604800 (7 days)." }),
});

export const CreateVerificationSchema = CreateVerificationFieldsSchema.superRefine(checkConfigRules)
  .openapi("CreateVerificationRequest");

export type CreateVerificationInput = z.infer<typeof CreateVerificationSchema>;
type ConfigFields = z.infer<typeof ConfigFieldsSchema>;

/** Cross-field rules of the spec's Config/Step tables and the contract's creation rules. */
export function checkConfigRules(input: ConfigFields, ctx: z.RefinementCtx): void {
  const hasSugar = input.max_captures !== undefined;
  const hasSteps = input.steps !== undefined;
  if (hasSugar === hasSteps) {
    ctx.addIssue({ code: "custom", path: ["max_captures"], message: "Provide exactly one of max_captures or steps." });
  }
  if (input.steps) {
    const seen = new Set<string>();
    let evidenceSteps = 0;
    let total = 0;
    input.steps.forEach((step, i) => {
      if (seen.has(step.key)) ctx.addIssue({ code: "custom", path: ["steps", i, "key"], message: "Step keys must be unique." });
      seen.add(step.key);
      if (step.type === "text") {
        const { min_length, max_length } = step.validation;
        if (min_length !== undefined && min_length > max_length) {
          ctx.addIssue({ code: "custom", path: ["steps", i, "validation", "min_length"], message: "min_length must not exceed max_length." });
        }
        return;
      }
      evidenceSteps += 1;
      total += step.max;
      if (step.min > step.max) ctx.addIssue({ code: "custom", path: ["steps", i, "min"], message: "min must not exceed max." });
      if (step.type === "upload" && step.accept && new Set(step.accept).size !== step.accept.length) {
        ctx.addIssue({ code: "custom", path: ["steps", i, "accept"], message: "accept must not repeat a media type." });
      }
    });
    if (evidenceSteps === 0) {
      ctx.addIssue({ code: "custom", path: ["steps"], message: "At least one image or upload step is required." });
    } else if (total > MAX_TOTAL_CAPTURES) {
      ctx.addIssue({ code: "custom", path: ["steps"], message: `The image and upload steps may hold at most ${MAX_TOTAL_CAPTURES} captures in total (sum of max).` });
    }
  }
  if (input.signals_required) {
    if (new Set(input.signals_required).size !== input.signals_required.length) {
      ctx.addIssue({ code: "custom", path: ["signals_required"], message: "signals_required must not repeat a signal." });
    }
    // "context" without a context object is refused with what the deployment can assess
    // (domain/capabilities.ts `assertAssessable`), so the first answer names both.
    // A context is cross-checked against the captures by the context signal: never stored unchecked.
    if (input.context && !input.signals_required.includes("context")) {
      ctx.addIssue({ code: "custom", path: ["context"], message: 'A context is cross-checked by the context signal: add "context" to signals_required, or leave context out.' });
    }
  }
}

export { MEDIA_TYPES };
