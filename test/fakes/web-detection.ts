import type { FakeHandler } from "./server";

/**
 * Google Cloud Vision `images:annotate` (WEB_DETECTION). The API key picks the answer: `found` full
 * and partial matches, `similar` only visually similar images, `quota` a 429, `error` an error entry.
 */
export const webDetection: FakeHandler = (req) => {
  if (req.method !== "POST" || req.path !== "/v1/images:annotate") return { status: 404, body: "{}" };
  const body = JSON.parse(req.body.toString("utf8")) as { requests?: Array<{ image?: { content?: string }; features?: Array<{ type: string }> }> };
  const first = body.requests?.[0];
  if (!first?.image?.content || first.features?.[0]?.type !== "WEB_DETECTION") return { status: 400, body: JSON.stringify({ error: { message: "bad request" } }) };
  const answer = (webDetection: unknown) => ({ status: 200, body: JSON.stringify({ responses: [{ webDetection }] }) });
  switch (req.query.get("key")) {
    case "found":
      return answer({
        fullMatchingImages: [{ url: "https://stock.example/car.jpg" }],
        partialMatchingImages: [{ url: "https://blog.example/car-crop.jpg" }],
        pagesWithMatchingImages: [{ url: "https://blog.example/post" }],
        visuallySimilarImages: [{ url: "https://x.example/1.jpg" }],
      });
    case "similar":
      return answer({ visuallySimilarImages: [{ url: "https://x.example/1.jpg" }, { url: "https://x.example/2.jpg" }] });
    case "quota":
      return { status: 429, body: JSON.stringify({ error: { message: "quota" } }) };
    case "error":
      return { status: 200, body: JSON.stringify({ responses: [{ error: { message: "image too small" } }] }) };
    default:
      return { status: 403, body: JSON.stringify({ error: { message: "bad key" } }) };
  }
};
