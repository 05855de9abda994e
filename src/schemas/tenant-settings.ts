import { z } from "@hono/zod-openapi";

export const TenantSettingsSchema = z
  .object({
    retention_days: z.int().min(1).max(3650).nullable().openapi({
      description: "Verifications created more than this many days ago are redacted by the daily retention run; null keeps them.",
      example: 90,
    }),
  })
  .openapi("TenantSettings");

export const TenantSettingsPatchSchema = z
  .strictObject({ retention_days: z.int().min(1).max(3650).nullable() })
  .openapi("TenantSettingsPatch");
