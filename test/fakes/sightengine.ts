import { isLabelled } from "./recorded";
import type { FakeHandler } from "./server";

/**
 * Sightengine `POST /1.0/check.json` with `models=genai` (src/providers/ai-detection.ts cites the
 * documentation this speaks): a multipart body with `media`, `models`, `api_user`, `api_secret`;
 * `{status: "success", request, type: {ai_generated}, media}` or `{status: "failure", request, error}`.
 * The `api_user` picks the answer: `ai` a generated image, `human` a photo, `quota` a documented 429,
 * `failure` a 200 that says failure, `malformed` a success without a score, `not-json` an HTML page,
 * `slow` a photo after 1.5 s; an `api_secret` other than `secret` is the documented bad-credentials error.
 * `media` must be the JPEG, PNG or WebP its part's type says.
 */
export const sightengine: FakeHandler = async (req) => {
  if (req.method !== "POST" || req.path !== "/1.0/check.json") return failure(404, "argument_error", "unknown endpoint");
  const contentType = String(req.headers["content-type"] ?? "");
  if (!contentType.startsWith("multipart/form-data")) return failure(400, "argument_error", "expected a multipart body");
  const form = await new Request("http://fake/", { method: "POST", headers: { "content-type": contentType }, body: new Uint8Array(req.body) }).formData();
  const media = form.get("media");
  if (form.get("models") !== "genai") return failure(400, "argument_error", "models must be genai");
  if (!(media instanceof Blob) || media.size === 0) return failure(400, "argument_error", "media is missing");
  const head = new Uint8Array(await media.slice(0, 12).arrayBuffer());
  if (!isLabelled(head, media.type)) return failure(400, "media_error", `media is not the ${media.type || "image"} it claims`);
  if (form.get("api_secret") !== "secret") return failure(401, "argument_error", "Incorrect API user or API secret", 1);
  const success = (aiGenerated: number, delayMs?: number) => ({
    status: 200,
    ...(delayMs ? { delayMs } : {}),
    body: JSON.stringify({ status: "success", request: { id: "req_fake0001", timestamp: 1763657604.98, operations: 1 }, type: { ai_generated: aiGenerated }, media: { id: "med_fake0001", uri: "capture.jpg" } }),
  });
  switch (form.get("api_user")) {
    case "ai":
      return success(0.97);
    case "human":
      return success(0.02);
    case "slow":
      return success(0.02, 1_500);
    case "quota":
      return failure(429, "usage_limit", "Daily usage limit reached", 32);
    case "failure":
      return { status: 200, body: JSON.stringify({ status: "failure", request: { id: "req_fake0002" }, error: { type: "media_error", code: 21, message: "Image could not be processed" } }) };
    case "malformed":
      return { status: 200, body: JSON.stringify({ status: "success", request: { id: "req_fake0003" }, type: { photo: 0.9 } }) };
    case "not-json":
      return { status: 502, headers: { "content-type": "text/html" }, body: "<html>Bad gateway</html>" };
    default:
      return failure(401, "argument_error", "Incorrect API user or API secret", 1);
  }
};

/** The documented error body (https://sightengine.com/docs/api-error-codes-and-responses). */
function failure(status: number, type: string, message: string, code = 0) {
  return { status, body: JSON.stringify({ status: "failure", request: { id: "req_fakeerr1", timestamp: 1763657604.98, operations: 0 }, error: { type, code, message } }) };
}
