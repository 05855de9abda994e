import { z } from "@hono/zod-openapi";

export const FinalizeRequestSchema = z
  .strictObject({
    narrative: z.string().min(1).max(2000).openapi({ description: "The claimant's written description, cross-checked against the captures." }),
  })
  .openapi("FinalizeRequest");
