import { z } from "@hono/zod-openapi";
import { singleLine } from "./common";

const RetentionDays = z.int().min(1).max(3650).nullable().openapi({
  description: "Verifications created more than this many days ago are redacted by the daily retention run; null keeps them.",
  example: 90,
});
const DisplayName = singleLine().trim().min(1).max(100).openapi({
  description:
    "The organisation's name as people see it: on the capture page (\"Requested by …\"), certificates and the console. One line: control characters and line breaks (CR, LF, U+2028, U+2029) are refused.",
  example: "Acme Insurance",
});

const ShareReuseIndex = z.boolean().openapi({
  description:
    "Off by default: reverse search compares a capture with this tenant's own verifications only. On: also with those of every other tenant that " +
    "opted in, and theirs with this tenant's (unnamed: a match says only that another tenant saw the photo; `sources` gains `shared_history`). " +
    "Turning it off withdraws this tenant's images from the shared pool at once.",
  example: false,
});

export const TenantSettingsSchema = z
  .object({ display_name: DisplayName, retention_days: RetentionDays, share_reuse_index: ShareReuseIndex })
  .openapi("TenantSettings");

export const TenantSettingsPatchSchema = z
  .strictObject({ display_name: DisplayName.optional(), retention_days: RetentionDays.optional(), share_reuse_index: ShareReuseIndex.optional() })
  .refine((patch) => Object.keys(patch).length > 0, { message: "Nothing to update." })
  .openapi("TenantSettingsPatch");
