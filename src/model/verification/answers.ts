import type { TextStep } from "./config";

/**
 * Why an answer is refused, as data: the server renders it in English (`validateAnswer`), the
 * capture page in the reader's language from the same check (it bundles this module).
 */
export type AnswerProblem =
  | { code: "blank" }
  | { code: "too_short"; limit: number }
  | { code: "too_long"; limit: number }
  | { code: "numeric_id" }
  | { code: "alphanumeric_id" };

const FORMAT_PATTERNS: Record<TextStep["validation"]["format"], RegExp> = {
  free_text: /^[\s\S]*$/,
  numeric_id: /^[0-9]+$/,
  alphanumeric_id: /^[A-Za-z0-9-]+$/,
};

/** Checks an answer against its text step's validation; null when valid. */
export function answerProblem(step: Pick<TextStep, "validation">, value: string): AnswerProblem | null {
  const { min_length, max_length, format } = step.validation;
  const length = value.length; // UTF-16 code units, as the page's maxlength counts (zod counts code points)
  if (value.trim().length === 0) return { code: "blank" };
  if (min_length !== undefined && length < min_length) return { code: "too_short", limit: min_length };
  if (length > max_length) return { code: "too_long", limit: max_length };
  if (!FORMAT_PATTERNS[format].test(value)) return { code: format as "numeric_id" | "alphanumeric_id" };
  return null;
}

const MESSAGES: { [K in AnswerProblem["code"]]: (p: Extract<AnswerProblem, { code: K }>) => string } = {
  blank: () => "The answer must not be blank.",
  too_short: (p) => `The answer must be at least ${p.limit} characters (an emoji counts as 2).`,
  too_long: (p) => `The answer must be at most ${p.limit} characters (an emoji counts as 2).`,
  numeric_id: () => "Use digits only.",
  alphanumeric_id: () => "Use letters, digits and hyphens only.",
};

/** Checks an answer against its text step's validation; returns the problem, or null when valid. */
export function validateAnswer(step: TextStep, value: string): string | null {
  const problem = answerProblem(step, value);
  if (!problem) return null;
  return (MESSAGES[problem.code] as (p: AnswerProblem) => string)(problem);
}
