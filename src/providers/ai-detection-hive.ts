import { z } from "zod";
import type { AiDetectionProvider, AiProviderOutcome } from "../analysis/signals/ai-combine";
import { ORIGINAL_MAX_BYTES, PROVIDER_MEDIA_TYPES, fileName, postForJson } from "./ai-detection-common";

/*
 * Hive's AI-Generated Image and Video Detection, through its V2 synchronous task API, as documented:
 * - https://docs.thehive.ai/reference/submit-a-task-synchronously: `POST
 *   https://api.thehive.ai/api/v2/task/sync`, header `Authorization: Token <API key>` (the project's
 *   key: the project decides the model), multipart form with `media` (the file) or `url`; "the
 *   synchronous endpoint keeps the HTTP request open until results have finished processing".
 * - https://docs.thehive.ai/reference/ai-generated-image-and-video-detection-1: the answer is the task
 *   object `{id, status: [{status: {code: "0", message: "SUCCESS"}, response: {input, output: [{time,
 *   classes: [{class, score}]}]}}]}`; the first head's classes are `ai_generated` and
 *   `not_ai_generated` (their scores sum to 1), the second head names the generator (`dalle`,
 *   `midjourney`, …, `none`), and a `deepfake` class scores faces. The score read here is
 *   `ai_generated` (0..1, higher = more likely generated); the rest is ignored.
 * - https://docs.thehive.ai/reference/common-errors: rate limiting is HTTP 429 with `{return_code:
 *   429, message: "Project has been rate limited"}`; a task that failed carries an error code (1000
 *   GENERIC_ERROR, 3100 CLASSIFIER_ERROR_UNSUPPORTED_MEDIA_TYPE, 3300 …_CORRUPT_FILE, 3401 …_TIMEOUT).
 * Every non-2xx answer, a task status other than code "0", a missing or out-of-range `ai_generated`,
 * an answer that is not JSON and a timeout are errors, never a score. No size limit is stated on the
 * pages read; the original is sent up to ORIGINAL_MAX_BYTES (ai-detection-common.ts).
 */

const TIMEOUT_MS = 15_000;
export const HIVE_URL = "https://api.thehive.ai";

const TaskStatus = z.object({
  status: z.object({ code: z.union([z.string().max(20), z.number()]), message: z.string().max(500).optional() }),
  response: z
    .object({
      output: z.array(z.object({ classes: z.array(z.object({ class: z.string().max(100), score: z.number() })).max(1000) })).max(1000),
    })
    .partial()
    .nullish(),
});
const Task = z.object({ id: z.string().max(200).optional(), status: z.array(TaskStatus).min(1).max(100) });
const Failure = z.object({ return_code: z.number().optional(), message: z.string().max(500) });

export function hiveAiGenerated(options: { apiKey: string; url?: string; fetcher?: typeof fetch; timeoutMs?: number; maxBytes?: number }): AiDetectionProvider {
  const doFetch = options.fetcher ?? fetch;
  const endpoint = `${(options.url ?? HIVE_URL).replace(/\/+$/, "")}/api/v2/task/sync`;
  return {
    name: "hive",
    accepts: { mediaTypes: PROVIDER_MEDIA_TYPES, maxBytes: options.maxBytes ?? ORIGINAL_MAX_BYTES },
    async detect(image, mediaType) {
      const form = new FormData();
      form.set("media", new Blob([image], { type: mediaType }), fileName(mediaType));
      const headers = { authorization: `Token ${options.apiKey}`, accept: "application/json" };
      const answer = await postForJson(doFetch, endpoint, { headers, body: form }, options.timeoutMs ?? TIMEOUT_MS);
      return "status" in answer ? readTask(answer.status, answer.body) : answer;
    },
  };
}

function readTask(status: number, body: unknown): AiProviderOutcome {
  if (status < 200 || status > 299) {
    const failure = Failure.safeParse(body);
    return { error: `HTTP ${status}${failure.success ? `: ${failure.data.message}` : ""}` };
  }
  const task = Task.safeParse(body);
  if (!task.success) return { error: "malformed answer: no task status" };
  const first = task.data.status[0]!;
  if (String(first.status.code) !== "0") return { error: `task failed: ${first.status.code}${first.status.message ? ` ${first.status.message}` : ""}` };
  const score = first.response?.output?.[0]?.classes.find((c) => c.class === "ai_generated")?.score;
  if (score === undefined || !(score >= 0 && score <= 1)) return { error: "malformed answer: no ai_generated score in 0..1" };
  return { score, evidence: task.data.id ? [{ code: "ai_provider_request", detail: task.data.id }] : [] };
}
