import { z } from "@hono/zod-openapi";
import { BIDI_CONTROL, FILLER, INVISIBLE, OTHER_SPACE, VISIBLE } from "../lib/text";
import { BIDI_CONTROL_MESSAGE, FILLER_MESSAGE, NOT_VISIBLE_MESSAGE, prose, singleLine } from "./common";

export const MEDIA_TYPES = ["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
/** The file name extension each accepted media type is downloaded with. */
export const FILE_EXTENSIONS: Record<MediaType, string> = { "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/heic": "heic", "image/heif": "heif" };

export const DEFAULT_MAX_SIZE_BYTES = 10 * 1024 * 1024;
export const MAX_SIZE_BYTES_CAP = 26_214_400;
export const TEXT_FORMATS = ["free_text", "numeric_id", "alphanumeric_id"] as const;

/*
 * A step key identifies a step wherever it is printed (the report, the console, webhooks), so two
 * keys must never print alike (probe of 2026-12-06: `ab` and `ab\u200b`, composed and decomposed
 * `é`, `x` and ` x` were three pairs of keys).
 */
const stepKey = singleLine()
  .min(1)
  .max(64)
  .refine((key) => key.trim() !== "", { message: "Must not be blank." })
  .refine((key) => VISIBLE.test(key), { message: NOT_VISIBLE_MESSAGE })
  .refine((key) => !BIDI_CONTROL.test(key), { message: BIDI_CONTROL_MESSAGE })
  .refine((key) => !INVISIBLE.test(key), { message: "Must not hold invisible characters (zero-width spaces and joiners, Hangul fillers, variation selectors, soft hyphens): they make two keys print alike." })
  .refine((key) => !FILLER.test(key), { message: FILLER_MESSAGE })
  .refine((key) => key === key.trim(), { message: "Must not begin or end with white space." })
  .refine((key) => !OTHER_SPACE.test(key), { message: "Must not hold white space other than the plain space (U+0020): a no-break, ideographic or em space prints like it." })
  .refine((key) => key === key.normalize("NFC"), { message: "Must be in Unicode normalization form C (composed: `é` as U+00E9, not `e` + U+0301), so one key has one spelling." })
  .openapi({
    description:
      "Unique within the verification; one line that shows something, in Unicode NFC, without white space at either end. Control characters, line breaks (CR, LF, U+2028, U+2029), " +
      "bidirectional controls (U+202E…), invisible characters (U+200B, U+200D, U+3164, variation selectors…), the blank Braille pattern U+2800 and spaces other than U+0020 are refused, so no two keys print alike (look-alike letters of other scripts, such as Cyrillic а for Latin a, are not checked).",
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
