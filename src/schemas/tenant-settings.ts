import { z } from "@hono/zod-openapi";
import { AI_PROVIDER_SETTINGS } from "./ai-providers";
import { shownName } from "./common";

const RetentionDays = z.int().min(1).max(3650).nullable().openapi({
  description: "Verifications created more than this many days ago are redacted by the daily retention run; null keeps them.",
  example: 90,
});
const DisplayName = shownName(100).openapi({
    description:
      "The organisation's name as people see it: on the capture page (\"Requested by …\"), certificates and the console. One line: control characters and line breaks (CR, LF, U+2028, U+2029) " +
      "and bidirectional controls are refused, and so is a name of only invisible, combining or space characters.",
    example: "Acme Insurance",
  });

const ShareReuseIndex = z.boolean().openapi({
  description:
    "Off by default: reverse search compares a capture with this tenant's own verifications only. On: also with those of every other tenant that " +
    "opted in, and theirs with this tenant's (unnamed: a match says only that another tenant saw the photo; `sources` gains `shared_history`). " +
    "Turning it off withdraws this tenant's images from the shared pool at once.",
  example: false,
});

const AiDetectionProvider = z.enum(AI_PROVIDER_SETTINGS).nullable().openapi({
  description:
    "Which AI-detection provider this tenant's live captures are sent to when a verification requires `ai` and no provenance marker decides. " +
    "null (default): this deployment's choice (`GET /v1/capabilities` names it). `none`: none, ever: the images stay with this service and provenance metadata " +
    "decides (the evidence says `ai_provider_opted_out`). A provider's name: that one, which must be among `signals.ai.detection_providers` in `GET /v1/capabilities` " +
    "(otherwise 400). Should the deployment drop it later, no other provider is asked in its place: a live capture without a provenance marker then reads " +
    "`ai_detection` not assessed (`ai_provider_error`).",
  example: null,
});

export const TenantSettingsSchema = z
  .object({ display_name: DisplayName, retention_days: RetentionDays, share_reuse_index: ShareReuseIndex, ai_detection_provider: AiDetectionProvider })
  .openapi("TenantSettings");

export const TenantSettingsPatchSchema = z
  .strictObject({
    display_name: DisplayName.optional(),
    retention_days: RetentionDays.optional(),
    share_reuse_index: ShareReuseIndex.optional(),
    ai_detection_provider: AiDetectionProvider.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: "Nothing to update." })
  .openapi("TenantSettingsPatch");
