import { z } from "@hono/zod-openapi";
import { RoleSchema } from "./auth";
import { DateTime, pathId } from "./common";

const UserId = z.string().openapi({ example: "usr_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" });

export const MemberSchema = z
  .object({
    user_id: UserId,
    email: z.string().optional(),
    phone: z.string().optional(),
    display_name: z.string().optional(),
    role: RoleSchema,
    joined_at: DateTime,
  })
  .openapi("Member");

export const MemberListSchema = z
  .object({
    items: z.array(MemberSchema),
    next_cursor: z.string().optional().openapi({ description: "Pass as `cursor` for the next page; absent on the last one." }),
  })
  .openapi("MemberList");

export const MemberParam = z.object({
  user_id: pathId("user_id", { example: "usr_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
});

export const ChangeRoleSchema = z.strictObject({ role: RoleSchema }).openapi("ChangeRoleRequest");


export const InviteSchema = z
  .strictObject({
    email: z.email().max(254),
    role: RoleSchema.openapi({ description: "The role the invitee gets. Only an owner may invite an owner." }),
  })
  .openapi("InviteRequest");

export const InvitationSchema = z
  .object({
    id: z.string().openapi({ example: "inv_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    email: z.string(),
    role: RoleSchema,
    status: z.enum(["pending", "expired", "awaiting_sign_in", "accepted", "revoked"]).openapi({
      description:
        "`pending` until `expires_at`, then `expired` (a resend makes it pending again); `awaiting_sign_in`: an existing account's holder confirmed it, and their next sign-in adds the membership.",
    }),
    invited_by: UserId.openapi({ description: "The member who sent it (last)." }),
    created_at: DateTime,
    expires_at: DateTime,
    sent_at: DateTime.openapi({ description: "When the email last went out." }),
    send_count: z.number().int().min(1),
    claimed_at: DateTime.optional().openapi({ description: "When the holder of an existing account confirmed it (status `awaiting_sign_in`)." }),
    accepted_at: DateTime.optional(),
    revoked_at: DateTime.optional(),
  })
  .openapi("Invitation");

export const InvitationListSchema = z
  .object({
    items: z.array(InvitationSchema),
    next_cursor: z.string().optional().openapi({ description: "Pass as `cursor` for the next page; absent on the last one." }),
  })
  .openapi("InvitationList");

export const InvitationParam = z.object({
  id: pathId("id", { example: "inv_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
});

/** Any string: a link that is not a token's shape is dead like an unknown one (401 page), refused by its shape before any lookup. */
export const InvitationTokenParam = z.object({
  token: z.string().openapi({ param: { name: "token", in: "path" }, example: "ivt_…" }),
});
