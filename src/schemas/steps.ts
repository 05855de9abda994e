import { z } from "@hono/zod-openapi";
import { BIDI_CONTROL } from "../lib/text";
import { prose, singleLine } from "./common";

const BIDI_CONTROL_MESSAGE = "Must not hold bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069): they reorder what a reader sees.";

export const MEDIA_TYPES = ["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
/** The file name extension each accepted media type is downloaded with. */
export const FILE_EXTENSIONS: Record<MediaType, string> = { "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/heic": "heic", "image/heif": "heif" };

export const DEFAULT_MAX_SIZE_BYTES = 10 * 1024 * 1024;
export const MAX_SIZE_BYTES_CAP = 26_214_400;
export const TEXT_FORMATS = ["free_text", "numeric_id", "alphanumeric_id"] as const;

const stepKey = singleLine()
  .min(1)
  .max(64)
  .refine((key) => key.trim() !== "", { message: "Must not be blank." })
  .refine((key) => !BIDI_CONTROL.test(key), { message: BIDI_CONTROL_MESSAGE })
  .openapi({
    description:
      "Unique within the verification; one line, not blank (control characters, line breaks such as CR, LF, U+2028, U+2029 and bidirectional controls such as U+202E are refused).",
  });
const description = prose(z.string().max(500)).openapi({ description: "Shown to the end user; up to 500 characters. Lines and tabs are kept; other control characters (NUL, escape sequences, U+2028, U+2029) are refused." });

export const ImageStepSchema = z
  .strictObject({
    key: stepKey,
    type: z.literal("image"),
    description,
    min: z.int().min(0),
    max: z.int().min(1),
  })
  .openapi("ImageStep");

export const TextValidationSchema = z
  .strictObject({
    min_length: z.int().min(0).optional().openapi({ description: "In UTF-16 code units, as the browser's `minlength` counts (an emoji outside the BMP counts 2)." }),
    max_length: z.int().min(1).max(2000).openapi({ description: "In UTF-16 code units, as the browser's `maxlength` counts (an emoji outside the BMP counts 2)." }),
    format: z.enum(TEXT_FORMATS),
  })
  .openapi("TextValidation");

export const TextStepSchema = z
  .strictObject({
    key: stepKey,
    type: z.literal("text"),
    description: description.optional(),
    required: z.boolean(),
    validation: TextValidationSchema,
  })
  .openapi("TextStep");

export const UploadStepSchema = z
  .strictObject({
    key: stepKey,
    type: z.literal("upload"),
    description: description.optional(),
    min: z.int().min(0),
    max: z.int().min(1),
    accept: z.array(z.enum(MEDIA_TYPES)).min(1).optional().openapi({ description: "Defaults to all five image types." }),
    max_size_bytes: z
      .int()
      .min(1)
      .max(MAX_SIZE_BYTES_CAP)
      .optional()
      .openapi({ description: "Defaults to 10 MB (10485760); at most 25 MB (26214400)." }),
  })
  .openapi("UploadStep");

export const StepInputSchema = z.discriminatedUnion("type", [ImageStepSchema, TextStepSchema, UploadStepSchema]);
export type StepInput = z.infer<typeof StepInputSchema>;

/** A step as stored and echoed: upload defaults filled in. */
export const StepSchema = z
  .discriminatedUnion("type", [
    ImageStepSchema,
    TextStepSchema,
    UploadStepSchema.required({ accept: true, max_size_bytes: true }),
  ])
  .openapi("Step");
