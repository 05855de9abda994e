/** Who is calling, once authenticated. Every tenant-scoped query is filtered by `tenantId`. */
export type Principal =
  | { kind: "api_key"; tenantId: string; keyId: string; scope: "full" | "publishable" }
  | { kind: "session"; tenantId: string; userId: string }
  | { kind: "bot"; tenantId: string };
