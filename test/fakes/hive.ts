import { formFields, isLabelled, RequestLog, scenarioOf } from "./recorded";
import type { FakeHandler } from "./server";

/**
 * Hive `POST /api/v2/task/sync` (src/providers/ai-detection-hive.ts cites the documentation this
 * speaks): header `Authorization: Token <key>`, a multipart body with `media`; the task object
 * `{id, status: [{status: {code, message}, response: {input, output: [{time, classes}]}}]}`, or
 * `{return_code, message}` on an HTTP error. The key's scenario picks the answer: `ai` a generated
 * image (ai_generated 0.97), `human` a photo (0.02), `slow` a photo after 1.5 s, `quota` the
 * documented 429, `task-error` a task whose status is an error code, `malformed` a success without
 * the ai_generated class, `not-json` an HTML page; any other key is refused (401). Requests are kept
 * per key (`GET /hive/_requests/<key>`).
 */
export const log = new RequestLog();

export const hive: FakeHandler = async (req) => {
  const replay = log.serve(req);
  if (replay) return replay;
  const key = /^Token (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1] ?? "";
  const form = await formFields(req);
  log.record(key, req, form?.fields);
  if (req.method !== "POST" || req.path !== "/api/v2/task/sync") return failure(404, "Not found");
  if (!form) return failure(400, "expected a multipart body");
  const media = form.files.media;
  if (!media || media.bytes.length === 0) return failure(400, "media is missing");
  if (!isLabelled(media.bytes, media.blob.type)) return failure(400, `media is not the ${media.blob.type || "image"} it claims`);
  const task = (classes: Array<[string, number]>, delayMs?: number) => ({
    status: 200,
    ...(delayMs ? { delayMs } : {}),
    body: JSON.stringify({
      id: "hive-task-0001",
      code: 200,
      project_id: 56789,
      user_id: 1234,
      created_on: "2026-12-02T08:00:00.000Z",
      status: [
        {
          status: { code: "0", message: "SUCCESS" },
          response: {
            input: { id: "hive-task-0001", media: { filename: "capture", type: "PHOTO", mimetype: media.blob.type, num_frames: 1, duration: 0 }, user_id: 1234, project_id: 56789 },
            output: [{ time: 0, classes: classes.map(([name, score]) => ({ class: name, score })) }],
          },
        },
      ],
    }),
  });
  switch (scenarioOf(key)) {
    case "ai":
      return task([["ai_generated", 0.97], ["not_ai_generated", 0.03], ["midjourney", 0.9], ["none", 0.01], ["deepfake", 0.02]]);
    case "human":
      return task([["ai_generated", 0.02], ["not_ai_generated", 0.98], ["none", 0.97], ["deepfake", 0.01]]);
    case "slow":
      return task([["ai_generated", 0.02], ["not_ai_generated", 0.98]], 1_500);
    case "quota":
      return failure(429, "Project has been rate limited");
    case "task-error":
      return { status: 200, body: JSON.stringify({ id: "hive-task-0002", status: [{ status: { code: "3300", message: "CLASSIFIER_ERROR_CORRUPT_FILE" }, response: null }] }) };
    case "malformed":
      return task([["nsfw", 0.1], ["not_ai_generated", 0.9]]);
    case "not-json":
      return { status: 502, headers: { "content-type": "text/html" }, body: "<html>Bad gateway</html>" };
    default:
      return failure(401, "Invalid API key");
  }
};

/** The documented error body (https://docs.thehive.ai/reference/common-errors). */
function failure(status: number, message: string) {
  return { status, body: JSON.stringify({ return_code: status, message }) };
}
