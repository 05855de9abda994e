import { z } from "@hono/zod-openapi";
import { DateTime } from "./common";
import { CaptureIntegritySchema } from "./capture-integrity";
import { AttestationSchema } from "./verification";

/* The Capture resource (domain/evidence/present.ts builds it; analysis-view.ts its `analysis`). */

const Evidence = z
  .object({
    code: z.string().openapi({ example: "moire_grid_peaks" }),
    detail: z.string().optional(),
    value: z.union([z.number(), z.string(), z.boolean()]).optional(),
  })
  .openapi("EvidenceCode");

const Provider = z.string().optional().openapi({ description: "Which implementation produced the result.", example: "offline-moire" });
const MethodVersion = z.string().optional().openapi({ description: "Bumped whenever the method or its thresholds change.", example: "screen-moire/1" });

export const CaptureSignalSchema = z
  .union([
    z.object({
      status: z.literal("assessed"),
      value: z.record(z.string(), z.unknown()).openapi({
        description:
          "The signal's conclusion in its verdict shape: `screen_detection` `{screen_detected}`, `ai_detection` `{label, method}` (`method`: what decided it, `provenance` or `provider:<name>`; `pixels` is reserved and no result carries it), " +
          "`reverse_search` `{found_online, match_count}`, `depth` `{source, anomaly}`, `context_match` `{status}`.",
        example: { screen_detected: false },
      }),
      confidence: z.number().min(0).max(1).optional(),
      evidence: z.array(Evidence),
      provider: Provider,
      method_version: MethodVersion,
    }),
    z.object({ status: z.literal("not_applicable"), reason: z.string().openapi({ example: "uploaded_content" }) }),
    z.object({
      status: z.literal("not_assessed"),
      reason: z.string().openapi({ description: "Why the signal could not run; it is never read as clean." }),
      evidence: z.array(Evidence).optional(),
      provider: Provider,
      method_version: MethodVersion,
    }),
  ])
  .openapi("CaptureSignal");

export const CaptureAnalysisSchema = z
  .object({
    status: z.enum(["pending", "completed", "failed"]),
    signals: z.record(z.string(), CaptureSignalSchema).openapi({ description: "The verification's required signals, by verdict key." }),
    notes: z
      .array(
        z.object({
          code: z.string().openapi({ example: "web_search_not_configured" }),
          signal: z.string().optional().openapi({ description: "The verdict signal this note explains, when it explains one.", example: "reverse_search" }),
          detail: z.string().optional(),
        }),
      )
      .openapi({ description: "What the analysis could not see and why (`pixels_unavailable`, `web_search_not_configured`, `analysis_failed`, …)." }),
    analyzed_at: DateTime.optional(),
  })
  .openapi("CaptureAnalysis");

const SignedUrl = (what: string) =>
  z.url().optional().openapi({ description: `${what}: a GET URL valid for 5 minutes (fetch the capture again for a fresh one).` });

export const CaptureSchema = z
  .object({
    id: z.string().openapi({ example: "cap_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    verification_id: z.string().openapi({ example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    step_key: z.string(),
    source: z.enum(["live", "upload"]).openapi({ description: "`upload` for upload steps and audit mode." }),
    media_type: z.string().openapi({ example: "image/jpeg" }),
    size_bytes: z.int().min(0),
    sha256: z.string().length(64),
    width: z.int().nullable().openapi({
      description: "The stored pixels' width (before any EXIF orientation); null until analysed, or when the pixels could not be decoded.",
    }),
    height: z.int().nullable(),
    created_at: DateTime,
    client_captured_at: DateTime.optional(),
    location: z
      .object({
        source: z.enum(["device", "exif"]),
        lat: z.number(),
        lng: z.number(),
        accuracy_m: z.number().optional(),
        is_mock: z.boolean(),
      })
      .optional(),
    attestation: AttestationSchema.optional(),
    capture_integrity: CaptureIntegritySchema.optional().openapi({
      description:
        "What the hosted capture page reported of the camera and of a burst of frames around the shutter (client-reported: a cue, never proof). Absent for captures sent without it; its device label is removed by redaction.",
    }),
    image_url: SignedUrl("The stored image; absent once redacted"),
    thumbnail_url: SignedUrl("A JPEG of at most 480 px on its longest side; absent when the pixels could not be decoded (see `analysis.notes`)"),
    depth_map_url: SignedUrl("The capture's forensic buffer (16-bit PNG depth map), when it has one"),
    credentials_url: SignedUrl(
      "The received image with a C2PA manifest this deployment signs (Content Credentials: what it received and when, the SHA-256, the verification and tenant, each signal as assessed, the live capture's burst), the image data unchanged and bound by hash; " +
        "a file that arrived with a C2PA manifest store keeps it whole, every manifest unaltered, with this deployment's manifest added to the store as the active one and the previous active manifest its `parentOf` ingredient; " +
        "present when the deployment has a C2PA signer, the image is at most 25 MB, its analysis completed, and any C2PA manifest store it arrived with could be read; absent once redacted (docs/evidence.md, \"Content Credentials\")",
    ),
    redacted_at: DateTime.optional(),
    analysis: CaptureAnalysisSchema,
  })
  .openapi("Capture");

export const CaptureListSchema = z.object({ items: z.array(CaptureSchema) }).openapi("CaptureList");
