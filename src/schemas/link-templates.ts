import { z } from "@hono/zod-openapi";
import { DateTime, pathId, shownName } from "./common";
import { ConfigSchema } from "./verification";
import { checkConfigRules, CreateVerificationFieldsSchema } from "./verification-create";

export const TEMPLATE_MODES = ["verification", "audit"] as const;

const Slug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, "1..64 lowercase letters, digits and hyphens, not starting or ending with a hyphen.")
  .openapi({ example: "roof-damage" });
const Name = shownName(100).openapi({ example: "Roof damage claim" });
const Mode = z.enum(TEMPLATE_MODES);

/**
 * A template's capture spec: what each started verification is created with (the creation fields
 * without `mode`, which the template carries itself, and without `capture_channel`: a template's
 * link always leads to the hosted capture page). Stored as given; validated with the same rules as a
 * creation request, and against what the deployment assesses on the hosted page.
 */
export const TemplateSpecFieldsSchema = CreateVerificationFieldsSchema.omit({ mode: true, capture_channel: true });
export const TemplateSpecSchema = TemplateSpecFieldsSchema.superRefine(checkConfigRules);
export type TemplateSpec = z.infer<typeof TemplateSpecFieldsSchema>;

export const PublishLinkTemplateSchema = TemplateSpecFieldsSchema.extend({
  slug: Slug,
  name: Name,
  mode: Mode.optional().openapi({ description: "Defaults to `verification`." }),
})
  .superRefine(checkConfigRules)
  .openapi("PublishLinkTemplateRequest");

const F = TemplateSpecFieldsSchema.shape;
// A union rather than .nullable(): for a named schema (Context) the generator would intersect it
// with `type: [object, null]`, which null can never satisfy.
const clearable = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]).optional();

/**
 * A partial update: given fields replace the current ones (`steps` and `max_captures` replace each
 * other), `null` clears an optional field back to its default. Every update is a new version.
 */
export const UpdateLinkTemplateSchema = z
  .strictObject({
    name: Name.optional(),
    mode: Mode.optional(),
    max_captures: F.max_captures,
    steps: F.steps,
    signals_required: clearable(F.signals_required.unwrap()),
    context: clearable(F.context.unwrap()),
    webhook_url: clearable(F.webhook_url.unwrap()),
    notify_email: clearable(F.notify_email.unwrap()),
    metadata: clearable(F.metadata.unwrap()),
    expected_location: clearable(F.expected_location.unwrap()),
    expected_object: clearable(F.expected_object.unwrap()),
    condition_aspects: clearable(F.condition_aspects.unwrap()),
    seal: clearable(F.seal.unwrap()),
    expires_in_seconds: clearable(F.expires_in_seconds.unwrap()),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: "Nothing to update." })
  .openapi("UpdateLinkTemplateRequest");
export type TemplatePatch = z.infer<typeof UpdateLinkTemplateSchema>;

export const LinkTemplateSchema = ConfigSchema.omit({ mode: true, capture_channel: true })
  .extend({
    id: z.string().openapi({ example: "tpl_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    slug: Slug,
    name: z.string(),
    mode: Mode,
    status: z.enum(["active", "revoked"]),
    version: z.int().min(1).openapi({ description: "Changes with each publish or update; earlier versions are kept." }),
    url: z.string().openapi({ description: "The public link `/l/{org}/{slug}` that starts a verification." }),
    expires_in_seconds: z.int(),
    seal: z.boolean(),
    started_total: z.int().min(0),
    started_today: z.int().min(0).openapi({ description: "Starts during the current UTC day." }),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .openapi("LinkTemplate");

export const LinkTemplateListSchema = z.object({ items: z.array(LinkTemplateSchema) }).openapi("LinkTemplateList");

/** The spec's quirk for this one endpoint: a storage failure is `{error: "storage_unavailable"}`. */
export const LinkTemplateListErrorSchema = z.object({ error: z.literal("storage_unavailable") }).openapi("LinkTemplateListError");

export const TemplateSlugParam = z.object({ slug: pathId("slug", { example: "roof-damage" }) });

export const PublicLinkParams = z.object({
  org: pathId("org", { description: "The tenant's slug", example: "acme" }),
  slug: pathId("slug", { example: "roof-damage" }),
});
