import { z } from "@hono/zod-openapi";
import { DateTime, pathId, shownName } from "./common";

export const MintApiKeySchema = z
  .strictObject({
    scope: z.enum(["full", "publishable"]).openapi({
      description: "`full`: the whole tenant API. `publishable`: may only create verifications (safe to ship in a mobile app).",
    }),
    // One line: it names the key wherever it acts (the audit log's actor).
    name: shownName(100).optional().openapi({
      description: "One line that shows something: control characters, line breaks and bidirectional controls are refused, and so is a name of only invisible characters.",
      example: "Production back-end",
    }),
  })
  .openapi("MintApiKeyRequest");

export const ApiKeySchema = z
  .object({
    id: z.string().openapi({ example: "key_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    name: z.string().optional(),
    scope: z.enum(["full", "publishable"]),
    environment: z.enum(["test", "live"]),
    prefix: z.string().openapi({ description: "The first characters of the key, to tell keys apart.", example: "pk_test_a1B2…" }),
    created_at: DateTime,
    last_used_at: DateTime.optional(),
    revoked_at: DateTime.optional(),
  })
  .openapi("ApiKey");

export const MintedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: "The plaintext key. Shown only in this response: only its hash is stored." }),
}).openapi("MintedApiKey");

export const ApiKeyListSchema = z.object({ items: z.array(ApiKeySchema) }).openapi("ApiKeyList");

export const ApiKeyIdParam = z.object({
  id: pathId("id", { example: "key_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
});
