import type { ZodError } from "zod";
import { ApiError, type FieldErrors } from "./errors";

type Issue = ZodError["issues"][number];

/** The option's own literal at its top level (a `schema_version: 2` against version 1's `1`) did not match: the input is another option. */
const literalMismatch = (issues: Issue[]) => issues.some((i) => i.code === "invalid_value" && i.path.length === 1 && i.values.length === 1);

/**
 * A union that matched no option is explained by the option it came closest to: among the options
 * whose top-level literal it carries (its `schema_version`), the fewest issues, the first on a tie.
 * A version 2 capture-integrity record with one bad field names that field, and a broken one is
 * never worded against version 1 (probe of 2026-12-05: `{schema_version: 2}` was told "expected 1").
 */
function closest(issue: Issue): Issue[] {
  if (issue.code !== "invalid_union" || !("errors" in issue) || !Array.isArray(issue.errors) || issue.errors.length === 0) return [issue];
  const all = issue.errors as Issue[][];
  const carried = all.filter((o) => !literalMismatch(o));
  const options = carried.length > 0 ? carried : all;
  const best = options.reduce((a, b) => (b.length < a.length ? b : a));
  if (best.length === 0) return [issue];
  return best.flatMap((nested) => closest({ ...nested, path: [...issue.path, ...nested.path] } as Issue));
}

/**
 * Zod's default size messages ("Too small: expected string to have >=1 characters") and its
 * "expected int, received number" in plain words, for the person who reads them beside a form field
 * as much as for a developer; a schema's own message is kept as written.
 */
function plainMessage(issue: Issue): string {
  // zod 4 issues carry no input: a missing field is told only by the words of its message.
  if (issue.code === "invalid_type" && / received undefined$/.test(issue.message)) return "Required.";
  if (issue.code === "invalid_type" && issue.expected === "int") return "Must be a whole number.";
  if (issue.code !== "too_small" && issue.code !== "too_big") return issue.message;
  if (!/^Too (small|big):/.test(issue.message)) return issue.message;
  const small = issue.code === "too_small";
  const bound = Number(small ? issue.minimum : issue.maximum);
  const strict = issue.inclusive === false;
  switch (issue.origin) {
    case "string":
      if (small && bound === 1) return "Must not be empty.";
      return `Use ${small ? "at least" : "at most"} ${bound} character${bound === 1 ? "" : "s"}.`;
    case "array":
    case "set":
      if (small && bound === 1) return "Give at least one.";
      return `Give ${small ? "at least" : "at most"} ${bound}.`;
    case "number":
    case "int":
    case "bigint":
      if (strict) return `Must be ${small ? "more" : "less"} than ${bound}.`;
      return `Must be ${small ? "at least" : "at most"} ${bound}.`;
    default:
      return issue.message;
  }
}

/**
 * zod's `int()` checks the safe-integer range before the schema's own bounds, so `1e16` against
 * `.max(20)` fails both; the schema's bound is the one to name.
 */
const SAFE_RANGE = (issue: Issue) => (issue.code === "too_big" || issue.code === "too_small") && issue.origin === "int" && Math.abs(Number(issue.code === "too_big" ? issue.maximum : issue.minimum)) === Number.MAX_SAFE_INTEGER;

/** Zod issues as `{dotted.path: message}`; the first message per path wins (a safe-integer range's last). */
export function zodFields(error: ZodError): FieldErrors {
  // No prototype: a body's `__proto__` key is named like any other unknown field, not swallowed by the setter.
  const fields: FieldErrors = Object.create(null) as FieldErrors;
  const put = (path: PropertyKey[], message: string) => {
    const key = path.map(String).join(".") || "body";
    if (!(key in fields)) fields[key] = message;
  };
  const issues = error.issues.flatMap(closest);
  for (const issue of [...issues.filter((i) => !SAFE_RANGE(i)), ...issues.filter(SAFE_RANGE)]) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) put([...issue.path, key], "Unknown field.");
    } else if (issue.code === "invalid_key" && issue.issues.length > 0) {
      // A map's key out of its bounds: zod says only "Invalid key in record"; say which bound.
      put(issue.path, `This key: ${plainMessage(issue.issues[0] as Issue)}`);
    } else {
      put(issue.path, plainMessage(issue));
    }
  }
  return fields;
}

/**
 * The OpenAPIHono default hook: a validation failure is a 400 `invalid_request` with fields, except
 * in the path: a path segment that fails its bound (schemas/common.ts, pathId) names nothing, so it is
 * 404 `not_found` like any unknown id (the spec's 400 is for bodies), and nothing is looked up.
 */
export function validationHook(result: ({ success: true } | { success: false; error: ZodError }) & { target?: string }): void {
  if (result.success) return;
  if (result.target === "param") throw ApiError.notFound();
  throw ApiError.invalid(zodFields(result.error));
}
