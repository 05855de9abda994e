import { z } from "@hono/zod-openapi";

const RetentionDays = z.int().min(1).max(3650).nullable().openapi({
  description: "Verifications created more than this many days ago are redacted by the daily retention run; null keeps them.",
  example: 90,
});
const DisplayName = z.string().trim().min(1).max(100).openapi({
  description: "The organisation's name as people see it: on the capture page (\"Requested by …\"), certificates and the console.",
  example: "Acme Insurance",
});

export const TenantSettingsSchema = z
  .object({ display_name: DisplayName, retention_days: RetentionDays })
  .openapi("TenantSettings");

export const TenantSettingsPatchSchema = z
  .strictObject({ display_name: DisplayName.optional(), retention_days: RetentionDays.optional() })
  .refine((patch) => Object.keys(patch).length > 0, { message: "Nothing to update." })
  .openapi("TenantSettingsPatch");
