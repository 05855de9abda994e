import type { TextStep } from "./config";

const FORMAT_RULES: Record<TextStep["validation"]["format"], { pattern: RegExp; message: string }> = {
  free_text: { pattern: /^[\s\S]*$/, message: "" },
  numeric_id: { pattern: /^[0-9]+$/, message: "Use digits only." },
  alphanumeric_id: { pattern: /^[A-Za-z0-9-]+$/, message: "Use letters, digits and hyphens only." },
};

/** Checks an answer against its text step's validation; returns the problem, or null when valid. */
export function validateAnswer(step: TextStep, value: string): string | null {
  const { min_length, max_length, format } = step.validation;
  const length = value.length; // UTF-16 code units, as zod and the browser's maxlength count
  if (value.trim().length === 0) return "The answer must not be blank.";
  if (min_length !== undefined && length < min_length) return `The answer must be at least ${min_length} characters.`;
  if (length > max_length) return `The answer must be at most ${max_length} characters.`;
  const rule = FORMAT_RULES[format];
  if (!rule.pattern.test(value)) return rule.message;
  return null;
}
