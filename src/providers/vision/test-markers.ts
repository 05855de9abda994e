import type { ImageMetadata } from "../../analysis/metadata";
import { VISION_PROMPT_VERSION } from "./prompt";
import type { VisionJudge, VisionJudgement, VisionRequest } from "./types";

/*
 * Deterministic vision answers for test environments (local and staging, `pk_test_` keys): an image
 * carrying the documented marker gets exactly the judgement the marker names, so integrators can
 * exercise every verdict path without a model. Never used in production. docs/signals.md, "Test inputs".
 *
 *   vfy-test: context=mismatch; object=match; condition=7.5; condition.paint=3
 *
 * in a JPEG comment (COM segment) or a PNG text chunk named `vfy-test`.
 */

const MARKER = /vfy-test:\s*([^\n]*)/i;
const STATUSES = new Set(["match", "mismatch", "inconclusive"]);

export function testMarker(meta: Pick<ImageMetadata, "comments" | "png_text">): string | null {
  if (meta.png_text["vfy-test"]) return meta.png_text["vfy-test"];
  for (const comment of meta.comments) {
    const m = MARKER.exec(comment);
    if (m) return m[1]!.trim();
  }
  return null;
}

function parse(marker: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of marker.split(/[;,]/)) {
    const [key, value] = part.split("=").map((s) => s?.trim().toLowerCase());
    if (key && value) out.set(key, value);
  }
  return out;
}

/** A judge answering from the marker; parts the marker does not name stay inconclusive/unscored. */
export function testMarkerJudge(marker: string): VisionJudge {
  const fields = parse(marker);
  const status = (key: string) => {
    const v = fields.get(key);
    return v && STATUSES.has(v) ? (v as "match" | "mismatch" | "inconclusive") : "inconclusive";
  };
  const score = (aspect: string) => {
    const v = fields.get(`condition.${aspect.toLowerCase()}`) ?? fields.get("condition");
    const n = v === undefined ? NaN : Number(v);
    return Number.isFinite(n) ? Math.min(10, Math.max(0, n)) : null;
  };
  return {
    name: "test-marker",
    async judge(request: VisionRequest): Promise<VisionJudgement> {
      const confidence = (s: string) => (s === "inconclusive" ? 0 : 0.9);
      return {
        provider: "test-marker",
        model: "test-marker",
        prompt_version: VISION_PROMPT_VERSION,
        context: request.context ? { status: status("context"), confidence: confidence(status("context")), reasons: ["test marker"] } : null,
        object: request.expected_object ? { status: status("object"), confidence: confidence(status("object")), observed: [] } : null,
        condition: request.condition_aspects?.length
          ? request.condition_aspects.map((name) => {
              const s = score(name);
              return { name, score: s, reasoning: s === null ? "Not named by the test marker." : "test marker" };
            })
          : null,
      };
    },
  };
}
