import type { MatchStatus } from "../../analysis/evidence";
import type { AspectJudgement } from "../../analysis/independent-checks";

/** What to ask about one image; each part is present only when the verification activates it. */
export interface VisionRequest {
  /** JPEG, longest side ≤ 1024 px. */
  image: Uint8Array;
  context?: { kind: string; summary: string; attributes?: Record<string, string | number | boolean> };
  expected_object?: string;
  condition_aspects?: string[];
}

/** A judgement per requested part; `null` parts were not requested. Never invented: failures are inconclusive. */
export interface VisionJudgement {
  provider: string;
  model: string;
  prompt_version: string;
  context: { status: MatchStatus; confidence: number; reasons: string[] } | null;
  object: { status: MatchStatus; confidence: number; observed: string[] } | null;
  condition: AspectJudgement[] | null;
  /** Why the judgement is inconclusive (provider error, invalid output), when it is. */
  error?: string;
}

/** The vision-judge provider behind context_match, object_match and condition. */
export interface VisionJudge {
  readonly name: string;
  judge(request: VisionRequest): Promise<VisionJudgement>;
}
