import { z } from "@hono/zod-openapi";
import { DateTime, DateTimeInput, prose } from "./common";

export const REVIEW_DECISIONS = ["approved", "rejected", "needs_more"] as const;

export const ReviewRequestSchema = z
  .strictObject({
    decision: z.enum(REVIEW_DECISIONS),
    note: prose(z.string().min(1).max(2000))
      .refine((value) => value.trim().length > 0, { message: "Must say something: a note of only spaces and line breaks is not one." })
      .openapi({
        description:
          "Why: kept on the audit timeline with the reviewer, and printed in the report. Lines and tabs are kept; other control characters and a note of only white space are refused (400).",
      }),
    replaces: DateTimeInput.nullable()
      .optional()
      .openapi({
        description:
          "The `review.at` this decision was made beside (null: the verification showed no review). When the latest review is another one, the request is 409 `invalid_state` and nothing is recorded: a colleague's decision is never replaced unseen. Left out, the review is recorded whatever came before.",
      }),
  })
  .openapi("ReviewRequest");

export const ReviewSchema = z
  .object({
    decision: z.enum(REVIEW_DECISIONS),
    note: z.string().optional().openapi({ description: "Absent once the verification is redacted." }),
    by: z.string().openapi({ example: "usr_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    at: DateTime,
  })
  .openapi("Review");
