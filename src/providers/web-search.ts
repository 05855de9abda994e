import type { WebImageSearch } from "../analysis/signals/reverse-search";

const TIMEOUT_MS = 10_000;
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * Google Cloud Vision WEB_DETECTION. Only full and partial matching images count as "found online";
 * visually similar images never do (they are different photos).
 */
export function googleWebDetection(options: { apiKey: string; url?: string; fetcher?: typeof fetch }): WebImageSearch {
  const doFetch = options.fetcher ?? fetch;
  const endpoint = `${(options.url ?? "https://vision.googleapis.com").replace(/\/+$/, "")}/v1/images:annotate?key=${encodeURIComponent(options.apiKey)}`;
  return {
    name: "google-web-detection",
    async search(image) {
      if (image.length > MAX_IMAGE_BYTES) return { error: "image larger than the provider accepts" };
      let bin = "";
      for (let i = 0; i < image.length; i += 0x8000) bin += String.fromCharCode(...image.subarray(i, i + 0x8000));
      try {
        const res = await doFetch(endpoint, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ requests: [{ image: { content: btoa(bin) }, features: [{ type: "WEB_DETECTION", maxResults: 50 }] }] }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        if (!res.ok) {
          await res.body?.cancel();
          return { error: `HTTP ${res.status}` };
        }
        const body = (await res.json()) as { responses?: Array<{ webDetection?: Record<string, unknown>; error?: { message?: string } }> };
        const first = body.responses?.[0];
        if (!first) return { error: "empty response" };
        if (first.error) return { error: first.error.message ?? "provider error" };
        const web = first.webDetection ?? {};
        const full = Array.isArray(web.fullMatchingImages) ? web.fullMatchingImages.length : 0;
        const partial = Array.isArray(web.partialMatchingImages) ? web.partialMatchingImages.length : 0;
        const pages = Array.isArray(web.pagesWithMatchingImages) ? web.pagesWithMatchingImages.length : 0;
        return {
          found: full + partial > 0,
          count: full + partial,
          evidence: [
            { code: "web_full_matches", value: full },
            { code: "web_partial_matches", value: partial },
            { code: "web_pages_with_matches", value: pages },
          ],
        };
      } catch (err) {
        return { error: err instanceof Error && err.name === "TimeoutError" ? "timeout" : String(err).slice(0, 200) };
      }
    },
  };
}

export function webImageSearch(env: Env): WebImageSearch | null {
  if (!env.GOOGLE_VISION_API_KEY) return null;
  return googleWebDetection({ apiKey: env.GOOGLE_VISION_API_KEY, ...(env.GOOGLE_VISION_URL ? { url: env.GOOGLE_VISION_URL } : {}) });
}
