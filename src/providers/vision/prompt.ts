import { z } from "zod";
import { clamp01, round2 } from "../../analysis/evidence";
import type { VisionJudgement, VisionRequest } from "./types";

/** Bumped whenever the prompt or the schema changes; stored with every judgement. */
export const VISION_PROMPT_VERSION = "vision-judge/1";

const SYSTEM = [
  "You are a careful visual inspector for an evidence-verification service.",
  "Judge only what is visible in the photo. When you cannot tell, answer inconclusive or null.",
  "Answer with JSON only, following the schema exactly.",
].join(" ");

export function buildPrompt(request: VisionRequest): string {
  const parts: string[] = [];
  if (request.context) {
    const attributes = Object.entries(request.context.attributes ?? {})
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join("; ");
    parts.push(
      `CONTEXT: the photo is claimed to show a ${request.context.kind}: "${request.context.summary}"${attributes ? ` (${attributes})` : ""}. ` +
        `Set context.status to match if the photo is consistent with this claim, mismatch if it clearly contradicts it, inconclusive otherwise.`,
    );
  }
  if (request.expected_object) {
    parts.push(`OBJECT: is "${request.expected_object}" visible? Set object.status to match, mismatch (a different object is shown) or inconclusive.`);
  }
  if (request.condition_aspects?.length) {
    parts.push(
      `CONDITION: score each aspect from 0 (destroyed) to 10 (as new), or null if it is not visible: ${request.condition_aspects.map((a) => `"${a}"`).join(", ")}.`,
    );
  }
  return parts.join("\n");
}

export function systemPrompt(): string {
  return SYSTEM;
}

/** JSON schema given to the model (JSON mode); the reply is validated again on receipt. */
export function responseSchema(request: VisionRequest): Record<string, unknown> {
  const status = { type: "string", enum: ["match", "mismatch", "inconclusive"] };
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  if (request.context) {
    properties.context = {
      type: "object",
      properties: { status, confidence: { type: "number" }, reasons: { type: "array", items: { type: "string" } } },
      required: ["status", "confidence"],
    };
    required.push("context");
  }
  if (request.expected_object) {
    properties.object = {
      type: "object",
      properties: { status, confidence: { type: "number" }, observed: { type: "array", items: { type: "string" } } },
      required: ["status", "confidence"],
    };
    required.push("object");
  }
  if (request.condition_aspects?.length) {
    properties.condition = {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string" }, score: { type: ["number", "null"] }, reasoning: { type: "string" } },
        required: ["name", "score", "reasoning"],
      },
    };
    required.push("condition");
  }
  return { type: "object", properties, required };
}

const Status = z.enum(["match", "mismatch", "inconclusive"]);
const Confidence = z.number().transform((n) => round2(clamp01(n)));
const ReplySchema = z.object({
  context: z.object({ status: Status, confidence: Confidence, reasons: z.array(z.string()).optional() }).optional(),
  object: z.object({ status: Status, confidence: Confidence, observed: z.array(z.string()).optional() }).optional(),
  condition: z
    .array(z.object({ name: z.string(), score: z.number().nullable(), reasoning: z.string().optional() }))
    .optional(),
});

/** The judgement every part gets when the provider fails: inconclusive, unscored, with the reason. */
export function inconclusive(request: VisionRequest, meta: { provider: string; model: string }, error: string): VisionJudgement {
  return {
    ...meta,
    prompt_version: VISION_PROMPT_VERSION,
    context: request.context ? { status: "inconclusive", confidence: 0, reasons: [] } : null,
    object: request.expected_object ? { status: "inconclusive", confidence: 0, observed: [] } : null,
    condition: request.condition_aspects?.length
      ? request.condition_aspects.map((name) => ({ name, score: null, reasoning: `Not assessed: ${error}.` }))
      : null,
    error,
  };
}

/**
 * Validates a model reply (an object or a JSON string) against the request: scores are clamped to
 * 0..10 and rounded to one decimal, confidences to 0..1; a missing requested part or an unknown
 * aspect makes the reply invalid, and an invalid reply is inconclusive.
 */
export function parseReply(request: VisionRequest, reply: unknown, meta: { provider: string; model: string }): VisionJudgement {
  let value = reply;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value.trim().replace(/^```(?:json)?\s*|\s*```$/g, ""));
    } catch {
      return inconclusive(request, meta, "the model's reply is not JSON");
    }
  }
  const parsed = ReplySchema.safeParse(value);
  if (!parsed.success) return inconclusive(request, meta, "the model's reply does not follow the schema");
  const data = parsed.data;
  if ((request.context && !data.context) || (request.expected_object && !data.object) || (request.condition_aspects?.length && !data.condition)) {
    return inconclusive(request, meta, "the model's reply misses a requested part");
  }
  let condition: VisionJudgement["condition"] = null;
  if (request.condition_aspects?.length) {
    const byName = new Map(data.condition!.map((a) => [a.name.trim().toLowerCase(), a]));
    condition = request.condition_aspects.map((name) => {
      const a = byName.get(name.trim().toLowerCase());
      if (!a || a.score === null) return { name, score: null, reasoning: a?.reasoning || "Not visible in this capture." };
      return { name, score: Math.round(Math.min(10, Math.max(0, a.score)) * 10) / 10, reasoning: (a.reasoning ?? "").slice(0, 300) };
    });
  }
  return {
    ...meta,
    prompt_version: VISION_PROMPT_VERSION,
    context: data.context ? { status: data.context.status, confidence: data.context.confidence, reasons: (data.context.reasons ?? []).slice(0, 5) } : null,
    object: data.object ? { status: data.object.status, confidence: data.object.confidence, observed: (data.object.observed ?? []).slice(0, 10) } : null,
    condition,
  };
}
