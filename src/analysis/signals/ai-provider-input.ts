import type { Evidence } from "../evidence";
import { stripMetadata } from "../strip-metadata";
import type { AiDetectionProvider } from "./ai-combine";

/*
 * What a detection provider is sent (docs/signals.md, "What each provider is sent"): the original
 * file with its metadata stripped and its coded image data unchanged, when the provider takes its
 * format and the stripped file fits the provider's documented size limit; otherwise the analysis's
 * bounded JPEG (≤ 1024 px, re-encoded from the decoded pixels). A re-encode erases the compression
 * traces a detector reads, so it is the fallback, never the default. The evidence code
 * `ai_provider_input` says which was sent and why.
 */

export interface ProviderImage {
  bytes: Uint8Array;
  mediaType: string;
  evidence: Evidence;
}

export function imageForProvider(
  accepts: AiDetectionProvider["accepts"],
  original: { bytes: Uint8Array; mediaType: string },
  reencoded: () => Uint8Array | null,
): ProviderImage | null {
  let why: string;
  if (!accepts.mediaTypes.includes(original.mediaType)) {
    why = `${original.mediaType} is not a format the provider documents`;
  } else {
    const stripped = stripMetadata(original.bytes, original.mediaType, accepts.maxBytes);
    if (stripped.ok) {
      const removed = stripped.removed.length ? `removed: ${stripped.removed.join(", ")}` : "no metadata found";
      return { bytes: stripped.bytes, mediaType: original.mediaType, evidence: { code: "ai_provider_input", value: "original_stripped", detail: `the original ${original.mediaType}, ${stripped.bytes.length} bytes, ${removed}`.slice(0, 300) } };
    }
    why = stripped.reason === "too_large" ? `the original is ${stripped.size} bytes without metadata, over the provider's ${accepts.maxBytes}` : `the original could not be stripped (${stripped.detail})`;
  }
  const jpeg = reencoded();
  if (!jpeg) return null;
  return { bytes: jpeg, mediaType: "image/jpeg", evidence: { code: "ai_provider_input", value: "reencoded_jpeg", detail: `a JPEG re-encoded from the decoded pixels (≤ 1024 px): ${why}`.slice(0, 300) } };
}
