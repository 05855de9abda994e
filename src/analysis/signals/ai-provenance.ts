import type { AiResult, Evidence } from "../evidence";
import { round2 } from "../evidence";
import type { ImageMetadata } from "../metadata";

export const AI_PROVENANCE_VERSION = "ai-provenance/1";

const IPTC = "http://cv.iptc.org/newscodes/digitalsourcetype/";
/** IPTC/C2PA digital source types that declare generated (or partly generated) content. */
const GENERATED_SOURCE_TYPES = new Set([
  `${IPTC}trainedAlgorithmicMedia`,
  `${IPTC}compositeWithTrainedAlgorithmicMedia`,
  `${IPTC}algorithmicMedia`,
  `${IPTC}compositeSynthetic`,
  "c2pa.trainedAlgorithmicData",
]);
/** Source types a capture device or capture app declares. */
const CAPTURE_SOURCE_TYPES = new Set([`${IPTC}digitalCapture`, `${IPTC}computationalCapture`]);

/** Generator names seen in EXIF Software / XMP CreatorTool / PNG Software chunks. */
const GENERATOR_NAMES =
  /\b(stable[\s-]?diffusion|automatic1111|comfyui|invokeai|fooocus|novelai|midjourney|dall[\s·-]?e|firefly|imagen|gemini|flux(?:\.1)?|leonardo\.ai|ideogram|sdxl|dreamstudio)\b/i;
/** The A1111 parameter block: "<prompt>\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: …". */
const SD_PARAMETERS = /\bSteps:\s*\d+[\s\S]*\bSampler:/;

function normalizeSourceType(value: string): string {
  const v = value.trim().replace(/^https:/, "http:");
  return v.includes("/") || v.startsWith("c2pa.") ? v : `${IPTC}${v}`;
}

/**
 * Provenance-based AI detection (offline, deterministic, high precision). A generator marker gives
 * `likely_ai`; a valid manifest from a trusted signer that declares a camera capture gives
 * `likely_human`; anything else is `unknown`: metadata is trivially stripped, so its absence is never
 * evidence of a human origin.
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
    for (const t of c2pa.digital_source_types.map(normalizeSourceType)) {
      if (GENERATED_SOURCE_TYPES.has(t)) hit("c2pa_generated_source_type", c2pa.valid ? 0.97 : 0.9, t);
    }
  }
  for (const t of meta.digital_source_types.map(normalizeSourceType)) {
    if (GENERATED_SOURCE_TYPES.has(t)) hit("xmp_generated_source_type", 0.9, t);
  }
  if (meta.png_text.parameters && SD_PARAMETERS.test(meta.png_text.parameters)) hit("sd_parameters_chunk", 0.9, meta.png_text.parameters);
  if (meta.png_text.prompt || meta.png_text.workflow) hit("comfyui_workflow_chunk", 0.9, Object.keys(meta.png_text).join(","));
  for (const key of ["invokeai_metadata", "sd-metadata", "fooocus_scheme"]) {
    if (meta.png_text[key]) hit("generator_metadata_chunk", 0.88, key);
  }
  if (meta.user_comment && SD_PARAMETERS.test(meta.user_comment)) hit("exif_user_comment_parameters", 0.88, meta.user_comment);
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
  if (c2pa?.valid && c2pa.trusted && c2pa.digital_source_types.map(normalizeSourceType).some((t) => CAPTURE_SOURCE_TYPES.has(t))) {
    evidence.push({ code: "c2pa_trusted_capture", detail: c2pa.signer ?? undefined });
    return { label: "likely_human", confidence: 0.9, method: "provenance", provider: "offline-provenance", method_version: AI_PROVENANCE_VERSION, evidence };
  }
  if (c2pa && !c2pa.trusted) evidence.push({ code: "c2pa_signer_untrusted", ...(c2pa.signer ? { detail: c2pa.signer } : {}) });
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
