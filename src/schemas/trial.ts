import { z } from "@hono/zod-openapi";
import { shownName } from "./common";

export const TrialStartSchema = z
  .strictObject({
    source: shownName(100).optional().openapi({ description: "Free-text tag recorded in the verification's metadata: one line that shows something, without control characters, bidirectional controls or fillers.", example: "landing-page" }),
  })
  .openapi("TrialStartRequest");

export const TrialStartedSchema = z
  .object({
    verification_id: z.string().openapi({ example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    capture_url: z.url().openapi({ example: "https://verify.example.com/c/vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
  })
  .openapi("TrialStarted");
