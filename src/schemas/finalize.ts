import { z } from "@hono/zod-openapi";
import { prose } from "./common";

export const FinalizeRequestSchema = z
  .strictObject({
    narrative: prose(z.string().min(1).max(2000))
      .refine((value) => value.trim().length > 0, { message: "Must say something: a narrative of only spaces and line breaks is not one." })
      .openapi({
        description:
          "The claimant's written description, cross-checked against the captures. Lines and tabs are kept; other control characters, half a surrogate pair and a narrative of only white space are refused (400).",
      }),
  })
  .openapi("FinalizeRequest");
