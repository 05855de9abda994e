import type { ReportContent } from "../../src/domain/report/content";
import { TIMELINE_ENDS } from "../../src/domain/report/gather";

/**
 * A fully populated report of `photos` captures, each with `thumbnail` as its image: every section
 * drawn (verdict with five signals, answers, the location map, object and condition checks, review,
 * case analysis, certificate link and QR code, seal, a timeline of every event).
 */
export function benchReportContent(photos: number, thumbnail: { jpeg: Uint8Array; width: number; height: number }, options: { worst?: boolean } = {}): ReportContent {
  const content = typicalContent(photos, thumbnail);
  return options.worst ? worstCase(content) : content;
}

/** Every text field the report prints at the length its schema allows (src/schemas), and 50 steps. */
function worstCase(content: ReportContent): ReportContent {
  const text = (n: number, seed: string) => (seed + " ").repeat(Math.ceil(n / (seed.length + 1))).slice(0, n);
  const v = content.verification;
  const textSteps = Array.from({ length: 49 }, (_, i) => ({ key: `question_${String(i).padStart(2, "0")}`.padEnd(64, "x"), type: "text" as const, description: text(500, "Describe the damage to this part"), required: true, max_length: 2000 }));
  const answers = Object.fromEntries(textSteps.map((step, i) => [step.key, { value: text(2000, `Answer ${i} with the longest words allowed`), answered_at: v.created_at }]));
  return {
    ...content,
    tenant: { ...content.tenant, displayName: text(100, "Bench Mutual Insurance") },
    verification: {
      ...v,
      config: {
        ...v.config,
        steps: [{ ...v.config.steps[0]!, description: text(500, "Every side of the vehicle") }, ...textSteps],
        metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key_${i}`.padEnd(40, "k"), text(500, `value ${i}`)])),
      },
      answers,
      narrative: text(2000, "The holder reversed into the gate post"),
      case_analysis: {
        ...v.case_analysis!,
        dimensions: Object.fromEntries(Object.entries(v.case_analysis!.dimensions).map(([k, d]) => [k, { ...d, evidence: text(1000, "The damage is where the narrative puts it") }])),
      },
      condition: { score: 6.5, label: "fair", aspects: Array.from({ length: 6 }, (_, i) => ({ name: `aspect ${i}`.padEnd(40, "a"), score: 5, reasoning: text(1000, "A dent and scratches at the rear left") })) },
      review: { ...v.review!, note: text(2000, "Ask for the earlier claim's photos") },
    } as ReportContent["verification"],
  };
}

function typicalContent(photos: number, thumbnail: { jpeg: Uint8Array; width: number; height: number }): ReportContent {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 27, 9, 0, s)).toISOString();
  const signals = ["screen_detection", "ai_detection", "reverse_search", "depth", "context_match"];
  return {
    generatedAt: at(59),
    issuer: "https://verify.example.com",
    tenant: { id: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", displayName: "Bench Mutual Insurance", verifiedDomain: "bench.example" },
    verification: {
      id: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
      status: "completed",
      capture_url: "https://verify.example.com/c/vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
      created_at: at(0),
      expires_at: at(50),
      captures_count: photos,
      config: {
        max_captures: photos,
        steps: [
          { key: "photo", type: "image", description: "Every side of the vehicle, the damage close up", min: 1, max: photos },
          { key: "policy", type: "text", description: "Policy number", required: true },
          { key: "story", type: "text", description: "What happened, in your words", required: true },
        ],
        signals_required: ["screen", "ai", "reverse", "depth", "context"],
        metadata: { claim_id: "CLM-BENCH-1", branch: "Munich" },
      },
      answers: { policy: { value: "POL-48213", answered_at: at(30) }, story: { value: "Reversing out of the garage I hit the gate post. ".repeat(20).trim(), answered_at: at(31) } },
      captures: [],
      submitted_at: at(40),
      completed_at: at(45),
      verdict: {
        label: "suspicious",
        score: 0.62,
        reason_code: "reverse_search_match",
        assessment: "complete",
        not_assessed: [],
        signals: {
          screen_detection: { screen_detected: false, confidence: 0.93 },
          ai_detection: { label: "likely_human", confidence: 0.71, method: "pixels" },
          reverse_search: { found_online: false, match_count: 1, sources: ["service_history"] },
          depth: { source: "capture_burst", confidence: 0.8 },
          context_match: { status: "match", confidence: 0.77 },
        },
      },
      narrative: "The holder reversed into the gate post; rear left bumper and light.",
      case_analysis: {
        overall_risk_score: 0.41,
        confidence: 0.7,
        dimensions: {
          narrative_image_match: { score: 0.8, evidence: "The damage is where the narrative puts it." },
          cross_image_consistency: { score: 0.75, evidence: "Same vehicle, same light, consistent plates." },
          physical_plausibility: { score: 0.7, evidence: "A low-speed impact of this shape fits a post.", concerns: ["paint transfer colour not visible"] },
        },
        review_priority: "medium",
        uncertainty_areas: ["one photo was seen in an earlier claim"],
        model: "vision-bench-1",
      },
      location_match: {
        status: "verified",
        expected_location: "48.137154,11.576124",
        observed_location: "48.13750,11.57650 (device fix ±12 m)",
        expected_point: { lat: 48.137154, lng: 11.576124 },
        observed_point: { lat: 48.1375, lng: 11.5765 },
        distance_m: 47,
        tolerance_m: 100,
        source: "device",
      },
      object_match: { status: "match", expected_object: "a silver hatchback" },
      condition: { score: 6.5, label: "fair", aspects: [{ name: "bodywork", score: 5, reasoning: "A dent and scratches at the rear left." }, { name: "tyres", score: 8, reasoning: "Even wear." }] },
      review: { decision: "needs_more", note: "Ask for the earlier claim's photos.", by: "usr_bench", at: at(55) },
      record_seal: { algorithm: "sha256", hash: "7f".repeat(32), covers: ["record", "answers"], answers_provenance: "user_declared" },
    } as ReportContent["verification"],
    signals: Object.fromEntries(signals.map((k) => [k, { status: "assessed" as const, method: k === "depth" ? "capture_burst" : "pixels" }])),
    captures: Array.from({ length: photos }, (_, i) => ({
      view: {
        id: `cap_01JD2Y4N9M6Q8R0S2T4V6W8X${String(i).padStart(2, "0")}`,
        verification_id: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
        step_key: "photo",
        source: "live" as const,
        media_type: "image/jpeg",
        size_bytes: 3_800_000 + i,
        sha256: (i.toString(16).padStart(2, "0") + "ab").repeat(16),
        width: 4032,
        height: 3024,
        created_at: at(i),
        location: { source: "device" as const, lat: 48.1375, lng: 11.5765, accuracy_m: 12, is_mock: false },
        analysis: {
          status: "completed" as const,
          notes: [],
          signals: Object.fromEntries(signals.map((k) => [k, { status: "assessed" as const, value: k === "screen_detection" ? { screen_detected: false } : { label: "likely_human" }, confidence: 0.8, evidence: [] }])),
        },
      },
      image: thumbnail,
      credentials: true,
    })),
    reviewer: "adjuster@bench.example",
    // The most a printed timeline holds (src/domain/report/gather.ts): its ends, whatever lies between.
    timeline: {
      first: Array.from({ length: TIMELINE_ENDS }, (_, i) => ({ name: i < photos ? "verification.capture.persisted" : "verification.answer.recorded", occurredAt: at(i) })),
      between: 500,
      last: Array.from({ length: TIMELINE_ENDS }, (_, i) => ({ name: "verification.reviewed", occurredAt: at(TIMELINE_ENDS + 500 + i) })),
    },
    certificateLinkUrl: "https://verify.example.com/v1/certificates/cert_3kTMd9Xw0sLq2b7YpVn4Rz8HfJ1cGa6uE5oQiW0mN2B",
    redacted: false,
  };
}
