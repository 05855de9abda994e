import { z } from "@hono/zod-openapi";

export const ProviderParam = z.object({
  provider: z.string().min(1).max(32).openapi({ param: { name: "provider", in: "path" }, example: "oidc", description: "`oidc` (configured by env) or, in local development only, `dev`." }),
});

export const LoginQuery = z.object({
  return_to: z.string().max(2000).optional().openapi({ description: "A path on this service to land on after sign-in (default `/v1/me`)." }),
  login_hint: z.string().max(254).optional().openapi({ description: "Passed to the identity provider (the `dev` provider signs in as this address)." }),
});

export const MagicLinkRequestSchema = z
  .strictObject({
    email: z.email().max(254),
    return_to: z.string().max(2000).optional().openapi({ description: "A path on this service to land on once the link is used (default `/v1/me`).", example: "/console" }),
  })
  .openapi("MagicLinkRequest");
export const MagicLinkSentSchema = z.object({ sent: z.literal(true) }).openapi("MagicLinkSent");
/** Any string: a link that is not a token's shape is dead like an unknown one (401 page), refused by its shape before any lookup. */
export const MagicLinkParam = z.object({
  token: z.string().openapi({ param: { name: "token", in: "path" }, example: "mlk_…" }),
});

export const OtpVerifySchema = z
  .strictObject({
    otp_id: z.string().regex(/^walotp_[0-9A-HJKMNP-TV-Z]{26}$/, "Expected a walotp_ id."),
    code: z.string().regex(/^\d{6}$/, "Expected six digits."),
  })
  .openapi("OtpVerifyRequest");

export const RoleSchema = z
  .enum(["owner", "admin", "reviewer", "viewer"])
  .openapi("Role", {
    description:
      "A member's role in a tenant, least to most: `viewer` (reads), `reviewer` (+ create, review, finalize), `admin` (+ members other than owners, invitations, API keys, webhooks and secret, settings, templates, phones, redaction, audit log), `owner` (everything, owners included).",
  });

export const TenantRefSchema = z.object({ id: z.string().openapi({ example: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }), slug: z.string(), display_name: z.string() });

export const MeSchema = z
  .object({
    user: z.object({
      id: z.string().openapi({ example: "usr_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
      email: z.string().optional(),
      phone: z.string().optional(),
      display_name: z.string().optional(),
    }),
    tenant: TenantRefSchema.openapi({ description: "The session's active tenant" }),
    role: RoleSchema.openapi({ description: "The user's role in the active tenant" }),
    memberships: z
      .array(z.object({ tenant: TenantRefSchema, role: RoleSchema }))
      .openapi({ description: "Every tenant the user belongs to (the active one included), oldest membership first: `POST /v1/auth/switch-tenant` opens another." }),
  })
  .openapi("Me");

export const SwitchTenantSchema = z
  .strictObject({ tenant_id: z.string().regex(/^tnt_[0-9A-HJKMNP-TV-Z]{26}$/, "Expected a tnt_ id.") })
  .openapi("SwitchTenantRequest");

export const SignedOutSchema = z.object({ signed_out: z.literal(true) }).openapi("SignedOut");
export const SignedOutEverywhereSchema = z
  .object({ signed_out: z.literal(true), users: z.number().int().min(0).openapi({ description: "Members of the tenant whose sessions for it were voided" }) })
  .openapi("SignedOutEverywhere");

export const SignInProvidersSchema = z
  .object({
    providers: z.array(
      z.object({
        id: z.enum(["oidc", "magic_link", "dev"]),
        kind: z.enum(["redirect", "email"]).openapi({ description: "`redirect`: open `login_url` (add `return_to`); `email`: `POST /v1/auth/magic-link`." }),
        name: z.string().openapi({ description: "A label for the button or form.", example: "Single sign-on" }),
        login_url: z.string().optional().openapi({ example: "/v1/auth/oidc/login" }),
      }),
    ),
  })
  .openapi("SignInProviders");
