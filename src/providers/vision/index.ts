import { buildPrompt, inconclusive, parseReply, responseSchema, systemPrompt } from "./prompt";
import type { VisionJudge, VisionJudgement, VisionRequest } from "./types";

export type { VisionJudge, VisionJudgement, VisionRequest } from "./types";

const TIMEOUT_MS = 20_000;
export const DEFAULT_WORKERS_AI_MODEL = "@cf/meta/llama-3.2-11b-vision-instruct";

function dataUri(jpeg: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < jpeg.length; i += 0x8000) bin += String.fromCharCode(...jpeg.subarray(i, i + 0x8000));
  return `data:image/jpeg;base64,${btoa(bin)}`;
}

function messages(request: VisionRequest) {
  return [
    { role: "system", content: systemPrompt() },
    {
      role: "user",
      content: [
        { type: "text", text: buildPrompt(request) },
        { type: "image_url", image_url: { url: dataUri(request.image) } },
      ],
    },
  ];
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return Promise.race([work, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms))]);
}

/** The minimal surface of the Workers AI binding this provider uses (so tests can pass a scripted fake). */
export interface AiRunner {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

/**
 * Workers AI vision model in JSON mode, temperature 0. Cloudflare does not guarantee the schema is
 * met ("JSON Mode couldn't be met"): every reply is validated, any failure is inconclusive.
 */
export function workersAiVisionJudge(ai: AiRunner, model = DEFAULT_WORKERS_AI_MODEL, timeoutMs = TIMEOUT_MS): VisionJudge {
  const meta = { provider: "workers-ai", model };
  return {
    name: "workers-ai",
    async judge(request) {
      try {
        const out = await withTimeout(
          ai.run(model, {
            messages: messages(request),
            response_format: { type: "json_schema", json_schema: responseSchema(request) },
            temperature: 0,
            seed: 7,
            max_tokens: 600,
          }),
          timeoutMs,
        );
        const reply = (out as { response?: unknown } | null)?.response;
        if (reply === undefined || reply === null) return inconclusive(request, meta, "the model returned no response");
        return parseReply(request, reply, meta);
      } catch (err) {
        return inconclusive(request, meta, `provider error: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200));
      }
    },
  };
}

/**
 * An OpenAI-compatible chat-completions endpoint (vLLM, Ollama, llama.cpp server, a hosted API), so a
 * self-hosted vision model can serve the judgements.
 */
export function openAiCompatibleVisionJudge(options: { url: string; model: string; apiKey?: string; fetcher?: typeof fetch; timeoutMs?: number }): VisionJudge {
  const doFetch = options.fetcher ?? fetch;
  const meta = { provider: "openai-compatible", model: options.model };
  const endpoint = `${options.url.replace(/\/+$/, "")}/chat/completions`;
  return {
    name: "openai-compatible",
    async judge(request) {
      try {
        const res = await doFetch(endpoint, {
          method: "POST",
          headers: { "content-type": "application/json", ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
          body: JSON.stringify({
            model: options.model,
            messages: messages(request),
            response_format: { type: "json_schema", json_schema: { name: "judgement", schema: responseSchema(request), strict: true } },
            temperature: 0,
            seed: 7,
            max_tokens: 600,
          }),
          signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS),
        });
        if (!res.ok) {
          await res.body?.cancel();
          return inconclusive(request, meta, `provider answered HTTP ${res.status}`);
        }
        let body: unknown;
        try {
          body = await res.json();
        } catch {
          return inconclusive(request, meta, "the provider's reply is not JSON");
        }
        const content = (body as { choices?: Array<{ message?: { content?: unknown } }> })?.choices?.[0]?.message?.content;
        if (content === undefined || content === null) return inconclusive(request, meta, "the provider's reply has no message content");
        return parseReply(request, content, meta);
      } catch (err) {
        const reason = err instanceof Error && err.name === "TimeoutError" ? "provider timed out" : `provider error: ${String(err)}`;
        return inconclusive(request, meta, reason.slice(0, 200));
      }
    },
  };
}

/**
 * Picks the configured judge: an OpenAI-compatible URL wins (explicit self-hosting), then the Workers
 * AI binding (declared only in staging and production), else none (signals stay inconclusive).
 */
export function visionJudge(env: Env): VisionJudge | null {
  if (env.VISION_API_URL) {
    return openAiCompatibleVisionJudge({
      url: env.VISION_API_URL,
      model: env.VISION_MODEL || "vision",
      ...(env.VISION_API_KEY ? { apiKey: env.VISION_API_KEY } : {}),
    });
  }
  const ai = (env as { AI?: AiRunner }).AI;
  if (ai) return workersAiVisionJudge(ai, env.VISION_MODEL || DEFAULT_WORKERS_AI_MODEL);
  return null;
}

export const NO_VISION_PROVIDER = "no vision provider configured";

/** The judgement when no provider is configured: nothing assessed, nothing invented. */
export function unassessed(request: Omit<VisionRequest, "image">): VisionJudgement {
  return inconclusive({ ...request, image: new Uint8Array() }, { provider: "none", model: "none" }, NO_VISION_PROVIDER);
}
