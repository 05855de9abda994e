import { z } from "@hono/zod-openapi";
import { VISIBLE } from "../lib/text";
import { prose } from "./common";

export const FinalizeRequestSchema = z
  .strictObject({
    narrative: prose(z.string().min(1).max(2000))
      .refine((value) => VISIBLE.test(value), { message: "Must say something: a narrative of only spaces, line breaks or characters that print as nothing is not one." })
      .openapi({
        description:
          "The claimant's written description, cross-checked against the captures. Lines and tabs are kept; other control characters, half a surrogate pair and a narrative that shows nothing (only white space, invisible or combining characters) are refused (400).",
      }),
  })
  .openapi("FinalizeRequest");
