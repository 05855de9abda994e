import { RequestLog, scenarioOf, sha256 } from "./recorded";
import type { FakeHandler, FakeRequest } from "./server";

/**
 * Reality Defender (src/providers/ai-detection-reality-defender.ts cites the documentation this
 * speaks): `POST /api/files/aws-presigned` (`x-api-key`, JSON `{fileName}`) answers `{code, errno,
 * response: {signedUrl}, mediaId, requestId}`; the file is PUT to the signed URL (here
 * `/upload/<requestId>`, which refuses an `x-api-key`); `GET /api/media/users/<requestId>` answers
 * `{requestId, resultsSummary: {status, metadata: {finalScore}}, models}`, ANALYZING on the first
 * poll. The key's scenario picks the result: `ai` FAKE 97, `human` AUTHENTIC 2, `suspicious`
 * SUSPICIOUS 64, `no-face` NOT_APPLICABLE (no faces), `unable` UNABLE_TO_EVALUATE, `forever`
 * ANALYZING on every poll, `malformed` FAKE without a finalScore, `not-json` an HTML page on the poll,
 * `quota` the documented 400 upload-limit-reached at presign, `not-found` a poll answering 404 until
 * the third; any other key is refused (401). Requests are kept per key
 * (`GET /reality-defender/_requests/<key>`).
 */
export const log = new RequestLog();

const uploads = new Map<string, { key: string; type: string; size: number; sha256: string }>();
/** Which key each request id was issued to. */
const owners = new Map<string, string>();
const polls = new Map<string, number>();
let next = 0;
const IMAGE_EXTENSIONS = /\.(jpg|jpeg|png|gif|webp)$/i;

export const realityDefender: FakeHandler = (req) => {
  const replay = log.serve(req);
  if (replay) return replay;
  const upload = /^\/upload\/(.+)$/.exec(req.path);
  if (upload) return put(req, decodeURIComponent(upload[1]!));
  const key = String(req.headers["x-api-key"] ?? "");
  const json = req.body.length ? safeJson(req.body) : undefined;
  log.record(key, req, json);
  const scenario = scenarioOf(key);
  if (!["ai", "human", "suspicious", "no-face", "unable", "forever", "malformed", "not-json", "quota", "not-found"].includes(scenario)) return failure(401, "unauthorized", "Invalid API key");
  if (req.method === "POST" && req.path === "/api/files/aws-presigned") {
    if (String(req.headers["content-type"] ?? "").split(";")[0] !== "application/json") return failure(400, "invalid-request", "expected JSON");
    const fileName = (json as { fileName?: unknown } | undefined)?.fileName;
    if (typeof fileName !== "string" || !IMAGE_EXTENSIONS.test(fileName)) return failure(400, "invalid-file-type", "fileName must name a supported file");
    if (scenario === "quota") return failure(400, "upload-limit-reached", "Upload limit reached");
    const requestId = `rd-req-${(next += 1)}`;
    owners.set(requestId, key);
    return {
      status: 200,
      body: JSON.stringify({ code: "ok", errno: 0, response: { signedUrl: `http://${req.headers.host}/reality-defender/upload/${requestId}?X-Amz-Signature=fake` }, mediaId: `rd-media-${next}`, requestId }),
    };
  }
  const media = /^\/api\/media\/users\/(.+)$/.exec(req.path);
  if (req.method === "GET" && media) {
    const requestId = decodeURIComponent(media[1]!);
    const stored = uploads.get(requestId);
    if (!stored || stored.key !== key) return failure(404, "not-found", "Resource not found");
    const poll = (polls.get(requestId) ?? 0) + 1;
    polls.set(requestId, poll);
    if (scenario === "not-json") return { status: 502, headers: { "content-type": "text/html" }, body: "<html>Bad gateway</html>" };
    if (scenario === "not-found" && poll < 3) return failure(404, "not-found", "Resource not found");
    if (poll === 1 || scenario === "forever") return result(requestId, "ANALYZING", null);
    switch (scenario) {
      case "ai":
        return result(requestId, "FAKE", 97);
      case "human":
      case "not-found":
        return result(requestId, "AUTHENTIC", 2);
      case "suspicious":
        return result(requestId, "SUSPICIOUS", 64);
      case "no-face":
        return result(requestId, "NOT_APPLICABLE", null, [{ code: "relevance", message: "no faces detected/faces too small" }]);
      case "unable":
        return result(requestId, "UNABLE_TO_EVALUATE", null);
      default:
        return result(requestId, "FAKE", null);
    }
  }
  return failure(404, "not-found", "Resource not found");
};

/** The signed storage URL: it takes the bytes, and refuses the API key (it has no business there). */
function put(req: FakeRequest, requestId: string) {
  const key = owners.get(requestId) ?? "";
  log.record(key, req);
  if (req.method !== "PUT") return { status: 405, body: "" };
  if (req.headers["x-api-key"]) return { status: 400, body: "<Error><Code>InvalidArgument</Code></Error>" };
  uploads.set(requestId, { key, type: String(req.headers["content-type"] ?? ""), size: req.body.length, sha256: sha256(req.body) });
  return { status: 200, body: "" };
}

function result(requestId: string, status: string, finalScore: number | null, reasons?: Array<{ code: string; message: string }>) {
  return {
    status: 200,
    body: JSON.stringify({
      name: "capture",
      filename: `rd-${requestId}.jpg`,
      originalFileName: "capture.jpg",
      requestId,
      uploadedDate: "2026-12-02T08:00:00Z",
      mediaType: "IMAGE",
      overallStatus: status,
      releaseVersion: "2.3.1",
      resultsSummary: { status, metadata: { finalScore, ...(reasons ? { reasons } : {}) } },
      models: [{ name: "rd-img-ensemble", status, data: null, predictionNumber: finalScore === null ? null : finalScore / 100, normalizedPredictionNumber: finalScore, rollingAvgNumber: null, finalScore }],
    }),
  };
}

function failure(status: number, code: string, response: string) {
  return { status, body: JSON.stringify({ code, errno: status, response }) };
}

function safeJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return body.toString("utf8").slice(0, 200);
  }
}
