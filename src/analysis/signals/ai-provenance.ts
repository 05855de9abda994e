import type { C2paDeclaration } from "../c2pa";
import type { AiResult, Evidence } from "../evidence";
import { round2 } from "../evidence";
import type { ImageMetadata } from "../metadata";
import { generatorParameters } from "./generator-parameters";

export const AI_PROVENANCE_VERSION = "ai-provenance/2";

const IPTC = "http://cv.iptc.org/newscodes/digitalsourcetype/";

/**
 * How each IPTC digital source type (http://cv.iptc.org/newscodes/digitalsourcetype/, 2025
 * vocabulary, plus C2PA's own `c2pa.*` terms) is read, in C2PA manifests and in XMP alike
 * (docs/signals.md, "Provenance"):
 *  - `generated`: the content is, or contains, media made by an algorithm or a trained model;
 *  - `capture`: a camera made it; it counts (likely_human) only under a valid, trusted signature;
 *  - `screen`: a screenshot, read as evidence for `screen_detection` (screen-provenance);
 *  - `none`: says nothing about generation (film scans, human edits, data-driven media, recordings
 *    of a virtual scene are listed so that every term is decided, not forgotten).
 */
export const SOURCE_TYPE_READING: Record<string, "generated" | "capture" | "screen" | "none"> = {
  trainedAlgorithmicMedia: "generated",
  compositeWithTrainedAlgorithmicMedia: "generated",
  algorithmicMedia: "generated",
  compositeSynthetic: "generated",
  "c2pa.trainedAlgorithmicData": "generated",
  digitalCapture: "capture",
  computationalCapture: "capture",
  screenCapture: "screen",
  // A recorded scene "enhanced, augmented or corrected by algorithm" (denoise, HDR, upscaling): not
  // generated (every phone's night mode would read as AI), and not a plain camera capture either.
  algorithmicallyEnhanced: "none",
  negativeFilm: "none",
  positiveFilm: "none",
  print: "none",
  humanEdits: "none",
  minorHumanEdits: "none",
  composite: "none",
  compositeCapture: "none",
  digitalArt: "none",
  virtualRecording: "none",
  dataDrivenMedia: "none",
  softwareImage: "none",
  digitalCreation: "none",
};

export function sourceTypeReading(value: string): "generated" | "capture" | "screen" | "none" | "unknown" {
  const v = value.trim().replace(/^https:/, "http:");
  const term = v.startsWith(IPTC) ? v.slice(IPTC.length) : v.includes("/") ? null : v;
  return (term !== null && SOURCE_TYPE_READING[term]) || "unknown";
}

/** Generator names seen in EXIF Software / XMP CreatorTool / PNG Software chunks. */
const GENERATOR_NAMES =
  /\b(stable[\s-]?diffusion|automatic1111|comfyui|invokeai|fooocus|novelai|midjourney|dall[\s·-]?e|firefly|imagen|gemini|flux(?:\.1)?|leonardo\.ai|ideogram|sdxl|dreamstudio)\b/i;
/**
 * Who states `c2pa.created` with no source type and is a generator: Microsoft's Bing Image Creator
 * and Designer (claim generator "Microsoft_Responsible_AI", agent "Image Creator from Designer"),
 * OpenAI's image models, and the names above.
 */
const C2PA_GENERATOR_AGENTS = new RegExp(
  `${GENERATOR_NAMES.source}|\\b(microsoft[\\s_]responsible[\\s_]ai|image creator|bing image|microsoft designer|openai|chatgpt|gpt-image|gpt-4o|sora)\\b`,
  "i",
);
/** PNG text keys only generators write (InvokeAI, the sd-metadata extension, Fooocus; InvokeAI's first `Dream`). */
const GENERATOR_CHUNKS = new Set(["invokeai_metadata", "sd-metadata", "fooocus_scheme", "Dream"]);

/** "active: c2pa.actions.v2 c2pa.created trainedAlgorithmicMedia" / "parentOf urn:c2pa:…: …". */
export function declarationDetail(d: C2paDeclaration, what: string | null): string {
  const where = d.role === "active" ? "active" : `${d.role} ${d.manifest}`;
  return `${where}: ${[d.assertion, d.action, what].filter(Boolean).join(" ")}`;
}

function term(sourceType: string): string {
  return sourceType.startsWith(IPTC) ? sourceType.slice(IPTC.length) : sourceType;
}

/**
 * Provenance-based AI detection (offline, deterministic, high precision). A generator marker gives
 * `likely_ai` whatever the manifest's signer, its trust or expiry (nobody forges a generator's label
 * against themselves), in any manifest of the store, active or ingredient; a valid manifest from a
 * trusted signer whose active manifest declares a camera capture gives `likely_human`; anything else
 * is `unknown`: metadata is trivially stripped, so its absence is never evidence of a human origin.
 */
export function detectAiProvenance(meta: ImageMetadata): AiResult {
  const evidence: Evidence[] = [];
  let aiConfidence = 0;
  const hit = (code: string, confidence: number, detail?: string) => {
    evidence.push({ code, ...(detail ? { detail: detail.slice(0, 200) } : {}) });
    aiConfidence = Math.max(aiConfidence, confidence);
  };

  const c2pa = meta.c2pa;
  if (c2pa) {
    evidence.push({ code: c2pa.valid ? "c2pa_manifest_valid" : "c2pa_manifest_invalid", ...(c2pa.failures.length ? { detail: c2pa.failures.join(", ").slice(0, 200) } : {}) });
    const declarations = c2pa.declarations ?? [];
    for (const d of declarations) {
      if (d.source_type && sourceTypeReading(d.source_type) === "generated") {
        hit("c2pa_generated_source_type", c2pa.valid ? 0.97 : 0.9, declarationDetail(d, term(d.source_type)));
      }
    }
    if (aiConfidence === 0) {
      for (const d of declarations) {
        if (d.action === "c2pa.created" && !d.source_type && d.agent && C2PA_GENERATOR_AGENTS.test(d.agent)) {
          hit("c2pa_generator_agent", c2pa.valid ? 0.95 : 0.88, declarationDetail(d, `by ${d.agent}`));
        }
      }
    }
  }
  for (const t of meta.digital_source_types) {
    if (sourceTypeReading(t) === "generated") hit("xmp_generated_source_type", 0.9, t);
  }
  for (const [key, value] of Object.entries(meta.png_text)) {
    const kind = generatorParameters(value);
    if (key.toLowerCase() === "parameters" && kind) hit("sd_parameters_chunk", 0.9, `${kind}: ${value}`);
    else if (key === "prompt" || key === "workflow" || kind === "comfyui_graph" || kind === "comfyui_workflow") hit("comfyui_workflow_chunk", 0.9, `${key}: ${kind ?? "present"}`);
    else if (GENERATOR_CHUNKS.has(key) || kind) hit("generator_metadata_chunk", 0.88, `${key}${kind ? `: ${kind}` : ""}`);
  }
  const comment = meta.user_comment ? generatorParameters(meta.user_comment) : null;
  if (comment) hit("exif_user_comment_parameters", 0.88, `${comment}: ${meta.user_comment}`);
  // ComfyUI's JPEG/WebP save nodes write the prompt graph into EXIF Make or Model ("Prompt: {…}", "workflow:{…}").
  for (const [field, value] of [["make", meta.make], ["model", meta.model]] as const) {
    const kind = value ? generatorParameters(value) : null;
    if (kind) hit("exif_generator_parameters", 0.88, `${field}: ${kind}`);
  }
  for (const [field, value] of [
    ["software", meta.software],
    ["creator_tool", meta.creator_tool],
    ["png_software", meta.png_text.Software ?? null],
  ] as const) {
    const name = value ? GENERATOR_NAMES.exec(value) : null;
    if (name) hit("generator_software_tag", 0.85, `${field}: ${value}`);
  }

  if (aiConfidence > 0) {
    return { label: "likely_ai", confidence: round2(aiConfidence), method: "provenance", provider: "offline-provenance", method_version: AI_PROVENANCE_VERSION, evidence };
  }
  // A camera only in the active manifest (an ingredient's capture says nothing about what was made of it).
  const capture = (c2pa?.declarations ?? []).find((d) => d.role === "active" && d.source_type && sourceTypeReading(d.source_type) === "capture");
  if (c2pa && capture) {
    if (c2pa.valid && c2pa.trusted) {
      evidence.push({ code: "c2pa_trusted_capture", detail: `${declarationDetail(capture, term(capture.source_type!))}; ${c2pa.signer ?? "signer"}; ${c2pa.trust?.detail ?? ""}; ${c2pa.trust?.revocation_detail ?? ""}`.slice(0, 200) });
      return { label: "likely_human", confidence: 0.9, method: "provenance", provider: "offline-provenance", method_version: AI_PROVENANCE_VERSION, evidence };
    }
  }
  if (c2pa && !c2pa.trusted) {
    const why = c2pa.trust ? (c2pa.trust.revocation === "revoked" ? c2pa.trust.revocation_detail : c2pa.trust.detail) : c2pa.valid ? null : "manifest does not validate";
    evidence.push({ code: c2pa.trust?.revocation === "revoked" ? "c2pa_signer_revoked" : "c2pa_signer_untrusted", detail: [c2pa.signer, why].filter(Boolean).join(": ").slice(0, 200) || undefined });
  }
  if (c2pa?.trust && c2pa.trust.revocation !== "revoked") evidence.push({ code: "c2pa_revocation", value: c2pa.trust.revocation, detail: c2pa.trust.revocation_detail });
  // Unknown: confidence grows with how much camera metadata survived (an intact EXIF block makes a
  // laundered generator output a little less likely) but stays low: absence of evidence is weak.
  const intact = [meta.make, meta.model, meta.date_time_original].filter(Boolean).length / 3;
  evidence.push({ code: "no_generator_marker", value: round2(intact), detail: "camera metadata completeness" });
  return {
    label: "unknown",
    confidence: round2(0.1 + 0.3 * intact),
    method: "provenance",
    provider: "offline-provenance",
    method_version: AI_PROVENANCE_VERSION,
    evidence,
  };
}

/** A screenshot declared by the file itself (C2PA action or XMP): evidence for `screen_detection`. */
export function declaredScreenCapture(meta: ImageMetadata): Evidence | null {
  const c2pa = (meta.c2pa?.declarations ?? []).find((d) => d.role === "active" && d.source_type && sourceTypeReading(d.source_type) === "screen");
  if (c2pa) return { code: "provenance_screen_capture", detail: `C2PA ${declarationDetail(c2pa, term(c2pa.source_type!))}` };
  const xmp = meta.digital_source_types.find((t) => sourceTypeReading(t) === "screen");
  return xmp ? { code: "provenance_screen_capture", detail: `XMP DigitalSourceType ${xmp}` } : null;
}
