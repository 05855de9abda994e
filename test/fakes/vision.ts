import { createHash } from "node:crypto";
import type { FakeHandler } from "./server";

/**
 * OpenAI-compatible `/chat/completions` for the vision judge. The requested `model` picks the reply:
 * `good` valid JSON, `clamp` out-of-range scores, `prose` non-JSON text, `missing` a reply without the
 * requested parts, `http500` a server error, `garbage` a non-JSON body, `slow` answers after the timeout,
 * `echo-digest` a mismatch whose reason is the SHA-256 of the image it was shown (which image was sent).
 * A request without the image as a data URI, temperature 0 or a response_format is refused with 400.
 */
export const vision: FakeHandler = (req) => {
  if (req.method !== "POST" || req.path !== "/v1/chat/completions") return { status: 404, body: "{}" };
  const body = JSON.parse(req.body.toString("utf8")) as {
    model: string;
    temperature?: number;
    response_format?: { type?: string };
    messages?: Array<{ content: unknown }>;
  };
  const parts = body.messages?.flatMap((m) => (Array.isArray(m.content) ? m.content : [])) as Array<{ type: string; image_url?: { url: string } }>;
  const image = parts?.find((p) => p.type === "image_url")?.image_url?.url ?? "";
  if (!image.startsWith("data:image/jpeg;base64,") || body.temperature !== 0 || body.response_format?.type !== "json_schema") {
    return { status: 400, body: JSON.stringify({ error: "bad request shape" }) };
  }
  const reply = (content: string) => ({ status: 200, body: JSON.stringify({ choices: [{ message: { role: "assistant", content } }] }) });
  switch (body.model) {
    case "good":
      return reply(
        JSON.stringify({
          context: { status: "mismatch", confidence: 0.85, reasons: ["the photo shows a bicycle, not a car"] },
          object: { status: "match", confidence: 0.8, observed: ["bicycle"] },
          condition: [
            { name: "frame", score: 7.26, reasoning: "light scratches" },
            { name: "tyres", score: null, reasoning: "not visible" },
          ],
        }),
      );
    case "clamp":
      return reply(
        JSON.stringify({
          context: { status: "match", confidence: 7 },
          object: { status: "mismatch", confidence: -2 },
          condition: [{ name: "frame", score: 42, reasoning: "perfect" }, { name: "tyres", score: -3, reasoning: "gone" }],
        }),
      );
    case "echo-digest": {
      const digest = createHash("sha256").update(Buffer.from(image.slice("data:image/jpeg;base64,".length), "base64")).digest("hex");
      return reply(JSON.stringify({ context: { status: "mismatch", confidence: 0.7, reasons: [`image sha256 ${digest}`] } }));
    }
    case "prose":
      return reply("The bicycle looks fine to me.");
    case "missing":
      return reply(JSON.stringify({ context: { status: "match", confidence: 0.9 } }));
    case "http500":
      return { status: 500, body: "upstream exploded" };
    case "garbage":
      return { status: 200, headers: { "content-type": "text/html" }, body: "<html>" };
    case "slow":
      return { ...reply("{}"), delayMs: 3_000 };
    default:
      return { status: 404, body: JSON.stringify({ error: "unknown model" }) };
  }
};
