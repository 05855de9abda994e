import { z } from "@hono/zod-openapi";
import { DateTime } from "./common";
import { PhoneNumber } from "./phones";
import { checkConfigRules, CreateVerificationFieldsSchema } from "./verification-create";

const TenantId = z.string().regex(/^tnt_[0-9A-HJKMNP-TV-Z]{26}$/, "Expected a tnt_ id.").openapi({ description: "The tenant this request acts for." });

export const BotCreateVerificationSchema = CreateVerificationFieldsSchema.extend({ tenant_id: TenantId })
  .superRefine(checkConfigRules)
  .openapi("BotCreateVerificationRequest");

export const BotLookupSchema = z
  .strictObject({
    tenant_id: TenantId,
    verification_id: z.string().regex(/^vfy_[0-9A-HJKMNP-TV-Z]{26}$/, "Expected a vfy_ id."),
  })
  .openapi("BotLookupRequest");

export const BotOtpRequestSchema = z
  .strictObject({
    tenant_id: TenantId,
    phone: PhoneNumber.openapi({ description: "A phone an operator of the tenant registered (`POST /v1/phones`)." }),
  })
  .openapi("BotOtpRequest");

export const BotOtpSchema = z
  .object({
    otp_id: z.string().openapi({ example: "walotp_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    code: z.string().openapi({ description: "Six digits for the bot to deliver; valid 10 minutes, 5 attempts.", example: "042917" }),
    expires_at: DateTime,
  })
  .openapi("BotOtp");

export const BotAuthHeader = z.object({
  "x-bot-auth": z.string().openapi({ description: "`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<raw body>\")>,v2=<hex HMAC-SHA256(secret, \"<t>.<METHOD>.<path>.<raw body>\")>`: v1 alone is accepted (the contract's scheme); v2 also binds method and path; every signature sent must verify; each signature is accepted once. " +
      "Or, so that two requests with the same body in the same second differ, with a fresh nonce per request: `t=<unix seconds>,n=<nonce>,v2=<hex HMAC-SHA256(secret, \"<t>.<n>.<METHOD>.<path>.<raw body>\")>` (nonce: 16–64 of `A-Z a-z 0-9 _ -`; no v1 beside it)." }),
});
