import { z } from "@hono/zod-openapi";
import { DateTime, pathId, shownName } from "./common";

/** An E.164 phone number, as the messaging bot reports its sender. */
export const PhoneNumber = z
  .string()
  .regex(/^\+[1-9]\d{6,14}$/, "Expected an E.164 phone number, e.g. +447700900123.")
  .openapi({ example: "+447700900123" });

export const RegisterPhoneSchema = z
  .strictObject({
    phone: PhoneNumber,
    label: shownName(100).optional().openapi({ description: "One line that shows something: control characters, line breaks and bidirectional controls are refused.", example: "Field team lead" }),
  })
  .openapi("RegisterPhoneRequest");

export const PhoneSchema = z
  .object({
    id: z.string().openapi({ example: "phn_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    phone: z.string(),
    label: z.string().optional(),
    registered_by: z.string().openapi({ description: "The dashboard user who registered it.", example: "usr_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    created_at: DateTime,
  })
  .openapi("Phone");

export const PhoneListSchema = z.object({ items: z.array(PhoneSchema) }).openapi("PhoneList");

export const PhoneIdParam = z.object({
  id: pathId("id", { example: "phn_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
});
