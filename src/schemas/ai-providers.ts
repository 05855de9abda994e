/*
 * The AI-detection providers a deployment can configure (src/providers/ai-detection.ts builds them),
 * by the names the API uses: `ai_detection.method` reads `provider:<name>`, `GET /v1/capabilities`
 * lists the configured ones, and a tenant's `ai_detection_provider` setting names one of them.
 */

/** In the order one is chosen when several are configured and nothing names one. */
export const AI_DETECTION_PROVIDERS = ["sightengine", "hive", "reality-defender"] as const;
export type AiDetectionProviderName = (typeof AI_DETECTION_PROVIDERS)[number];

/** What a tenant's `ai_detection_provider` may name besides null (the deployment's choice). */
export const AI_PROVIDER_SETTINGS = ["none", ...AI_DETECTION_PROVIDERS] as const;
export type AiProviderSetting = (typeof AI_PROVIDER_SETTINGS)[number] | null;
