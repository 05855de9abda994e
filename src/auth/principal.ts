/** A member's role in a tenant, least to most: viewer, reviewer, admin, owner (auth/roles.ts says what each may do). */
export type Role = "owner" | "admin" | "reviewer" | "viewer";

/** Who is calling, once authenticated. Every tenant-scoped query is filtered by `tenantId`. */
export type Principal =
  | { kind: "api_key"; tenantId: string; keyId: string; scope: "full" | "publishable"; name: string | null }
  | {
      kind: "session";
      /** The session's active tenant (the JWT's `tid`), where the user is a member with `role`. */
      tenantId: string;
      userId: string;
      role: Role;
      /** The user's email, else phone (null when neither): how the audit log names them. */
      label: string | null;
    }
  | { kind: "bot"; tenantId: string };

export type SessionPrincipal = Extract<Principal, { kind: "session" }>;

/** The caller of a session-only route (its `access` admits nothing else; this narrows the type). */
export function sessionPrincipal(principal: Principal): SessionPrincipal {
  if (principal.kind !== "session") throw new Error("a session-only route was reached without a session");
  return principal;
}
