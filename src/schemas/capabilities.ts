import { z } from "@hono/zod-openapi";
import { AI_METHOD_PATTERN, REVERSE_SOURCES } from "../analysis/evidence";
import { aiMethodsInWords } from "./ai-methods";
import { AI_DETECTION_PROVIDERS } from "./ai-providers";
import { CAPTURE_CHANNELS, SIGNALS } from "./verification-create";

const Reason = z.string().openapi({ description: "Why it is not available, or what limits it when it is." });
const Enable = z.string().openapi({ description: "What enables it (or lifts the limit): the configuration to set, or the capture path to use." });

const ChannelSupportSchema = z.object({ available: z.boolean(), reason: Reason.optional(), enable: Enable.optional() });

const CapabilitySchema = z
  .object({
    available: z.boolean().openapi({ description: "This deployment can assess it (on at least one capture channel: see `channels`)." }),
    provider: z.string().optional().openapi({ description: "Who assesses it, e.g. `offline-moire`, `workers-ai`, `nominatim`." }),
    sources: z.array(z.enum(REVERSE_SOURCES)).optional().openapi({ description: "`reverse` only: what a reverse search searches for this tenant." }),
    methods: z
      .array(z.string().regex(AI_METHOD_PATTERN))
      .optional()
      .openapi({
        description: `\`ai\` only: the methods this deployment runs for the asking tenant, each a value \`ai_detection.method\` can take (\`enable\` says how to add a provider). The methods: ${aiMethodsInWords()}.`,
        example: ["provenance"],
      }),
    detection_providers: z
      .array(z.enum(AI_DETECTION_PROVIDERS))
      .optional()
      .openapi({
        description:
          "`ai` only: every AI-detection provider this deployment configures, each a value a tenant's `ai_detection_provider` setting may name (`PATCH /v1/tenant/settings`). " +
          "One at most is asked about a tenant's captures: the `provider:<name>` in `methods` (the tenant's choice, else the deployment's; none when the tenant chose `none`).",
        example: ["sightengine", "hive"],
      }),
    reason: Reason.optional(),
    enable: Enable.optional(),
    channels: z
      .object({ hosted_page: ChannelSupportSchema, api: ChannelSupportSchema })
      .optional()
      .openapi({ description: "Where the capture channel matters: what each delivers (`depth`: the capture-integrity record on the hosted page, a depth map over the API)." }),
  })
  .openapi("Capability");

export const CapabilitiesSchema = z
  .object({
    signals: z.object({ screen: CapabilitySchema, ai: CapabilitySchema, reverse: CapabilitySchema, context: CapabilitySchema, depth: CapabilitySchema }),
    checks: z.object({ object_match: CapabilitySchema, condition: CapabilitySchema, location_match: CapabilitySchema }),
    defaults: z
      .object({ signals_required: z.array(z.enum(SIGNALS)), capture_channel: z.enum(CAPTURE_CHANNELS) })
      .openapi({ description: "What a creation naming neither gets: the default channel's default signals (hosted_page: screen, ai, reverse, depth) limited to what it assesses." }),
  })
  .openapi("Capabilities");
