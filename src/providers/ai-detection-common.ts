import type { AiProviderOutcome } from "../analysis/signals/ai-combine";

/*
 * What the detection adapters share. The formats an original is sent in: Reality Defender lists
 * .jpg, .jpeg, .png, .gif and .webp; the Sightengine and Hive pages read list none, and get the same
 * three common web formats (a format one refused would answer an error, read as an error, never a
 * score). HEIC is never sent as is (signals/ai-provider-input.ts sends the re-encoded JPEG instead).
 */
export const PROVIDER_MEDIA_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;

/**
 * The largest original sent (metadata stripped): Reality Defender documents images "up to 10MB"
 * (https://docs.realitydefender.com/api-reference/endpoint/presigned), the only image size limit the
 * pages read for the three providers state; Sightengine and Hive are held to it too, so that no
 * answer depends on a limit nobody wrote down. Larger originals get the bounded JPEG re-encode.
 */
export const ORIGINAL_MAX_BYTES = 10 * 1024 * 1024;

export function fileName(mediaType: string): string {
  return mediaType === "image/png" ? "capture.png" : mediaType === "image/webp" ? "capture.webp" : "capture.jpg";
}

/** A request that did not get an answer: a timeout is named so, anything else cut to its first words. */
export function postFailure(err: unknown): AiProviderOutcome {
  return { error: err instanceof Error && err.name === "TimeoutError" ? "timeout" : String(err).slice(0, 200) };
}

/** POSTs to a provider and reads its JSON answer: the status and body, or the outcome naming why there is none. */
export async function postForJson(doFetch: typeof fetch, endpoint: string, init: RequestInit, timeoutMs: number): Promise<{ status: number; body: unknown } | AiProviderOutcome> {
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await doFetch(endpoint, { ...init, method: "POST", signal });
  } catch (err) {
    return postFailure(err);
  }
  try {
    return { status: res.status, body: await res.json() };
  } catch {
    // A body the budget's abort cut off reads as no JSON: it is the timeout.
    return signal.aborted ? { error: "timeout" } : { error: `HTTP ${res.status}: the answer is not JSON` };
  }
}
