import type { ZodError } from "zod";
import { ApiError, type FieldErrors } from "./errors";

/** Zod issues as `{dotted.path: message}`; the first message per path wins. */
export function zodFields(error: ZodError): FieldErrors {
  // No prototype: a body's `__proto__` key is named like any other unknown field, not swallowed by the setter.
  const fields: FieldErrors = Object.create(null) as FieldErrors;
  const put = (path: PropertyKey[], message: string) => {
    const key = path.map(String).join(".") || "body";
    if (!(key in fields)) fields[key] = message;
  };
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) put([...issue.path, key], "Unknown field.");
    } else {
      put(issue.path, issue.message);
    }
  }
  return fields;
}

/** The OpenAPIHono default hook: every validation failure is a 400 `invalid_request` with fields. */
export function validationHook(result: { success: true } | { success: false; error: ZodError }): void {
  if (!result.success) throw ApiError.invalid(zodFields(result.error));
}
