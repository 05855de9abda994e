import { describe, expect, it } from "vitest";
import { ROLES, type Role } from "../../src/auth/roles";
import { callJson, seedTenant } from "../helpers/api";
import { signIn } from "../helpers/session";

/*
 * The role matrix: every operation a dashboard session may call (read from the served document) ×
 * every role. The table below is the specification; an operation missing from it (a new session
 * route) fails the first test until its least role is decided here.
 */
const LEAST_ROLE: Record<string, Role | "anyone"> = {
  getMe: "viewer",
  switchTenant: "viewer",
  signOut: "anyone",
  logoutEverywhere: "admin",
  // Verifications and their evidence.
  listVerifications: "viewer",
  getVerification: "viewer",
  listVerificationEvents: "viewer",
  listCaptures: "viewer",
  getVerificationReport: "viewer",
  getCapture: "viewer",
  listWebhookDeliveries: "viewer",
  listRecentWebhookDeliveries: "viewer",
  createVerification: "reviewer",
  reviewVerification: "reviewer",
  finalizeVerification: "reviewer",
  redactVerification: "admin",
  // Certificates: reading them is reading the verification; sharing one is a reviewer's act.
  getVerificationCertificate: "viewer",
  listCertificateLinks: "viewer",
  createCertificateLink: "reviewer",
  revokeCertificateLink: "reviewer",
  // Templates.
  listLinkTemplates: "viewer",
  getLinkTemplate: "viewer",
  publishLinkTemplate: "admin",
  updateLinkTemplate: "admin",
  revokeLinkTemplate: "admin",
  // Webhooks and keys.
  retryWebhookDelivery: "admin",
  sendWebhookTestEvent: "admin",
  getWebhookSecret: "admin",
  rotateWebhookSecret: "admin",
  createApiKey: "admin",
  listApiKeys: "admin",
  revokeApiKey: "admin",
  // The tenant and its people.
  getTenantSettings: "viewer",
  getCapabilities: "viewer",
  updateTenantSettings: "admin",
  getTenantDomain: "viewer",
  claimTenantDomain: "admin",
  checkTenantDomain: "admin",
  removeTenantDomain: "admin",
  registerPhone: "admin",
  listPhones: "admin",
  removePhone: "admin",
  listMembers: "viewer",
  changeMemberRole: "admin",
  removeMember: "admin",
  inviteMember: "admin",
  listInvitations: "admin",
  resendInvitation: "admin",
  revokeInvitation: "admin",
  listAuditLog: "admin",
};

interface Operation {
  id: string;
  method: string;
  path: string;
  documentedRole: string | undefined;
  hasBody: boolean;
}

async function sessionOperations(): Promise<Operation[]> {
  const doc = (await callJson("/v1/openapi.json")).body as {
    paths: Record<string, Record<string, { operationId: string; security?: Array<Record<string, unknown>>; "x-required-role"?: string; requestBody?: unknown }>>;
  };
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!(op.security ?? []).some((s) => "session" in s)) continue;
      out.push({ id: op.operationId, method: method.toUpperCase(), path, documentedRole: op["x-required-role"], hasBody: op.requestBody !== undefined });
    }
  }
  return out;
}

/** A well-formed request with made-up ids: a role that may call it gets past the role check (to a 400 or 404). */
function requestOf(op: Operation): { path: string; method: string; body?: unknown } {
  const path = op.path.replace(/\{[^}]+\}/g, "x_01JD2Y4N9M6Q8R0S2T4V6W8X0Z");
  return { path, method: op.method, ...(op.hasBody ? { body: {} } : {}) };
}

const ROLE_REFUSAL = /^This needs the (\w+) role( or higher)?\.$/;

describe("roles of every session route", () => {
  it("every session operation has its least role in the table, and the document says the same", async () => {
    const ops = await sessionOperations();
    expect(ops.length).toBeGreaterThan(30);
    const missing = ops.filter((op) => !(op.id in LEAST_ROLE)).map((op) => `${op.id} (${op.method} ${op.path})`);
    expect(missing, "a session route without a decided role: add it to LEAST_ROLE").toEqual([]);
    const gone = Object.keys(LEAST_ROLE).filter((id) => !ops.some((op) => op.id === id));
    expect(gone, "the table names operations the document no longer has").toEqual([]);
    for (const op of ops) {
      const role = LEAST_ROLE[op.id];
      expect(op.documentedRole, op.id).toBe(role === "anyone" ? undefined : role);
    }
  });

  it("a member below an operation's role gets 403 naming the role; at or above it, never a role refusal", async () => {
    // Signing out comes last: it ends the session the rest use.
    const last = (op: Operation) => (op.id === "signOut" ? 2 : op.id === "logoutEverywhere" ? 1 : 0);
    const ops = (await sessionOperations()).sort((a, b) => last(a) - last(b));
    const failures: string[] = [];
    for (const role of ROLES) {
      const tenant = await seedTenant(`Matrix ${role}`);
      const member = await signIn(tenant.id, role);
      for (const op of ops) {
        const least = LEAST_ROLE[op.id]!;
        const { path, method, body } = requestOf(op);
        const res = await callJson(path, { method, headers: { Cookie: member.cookie }, ...(body !== undefined ? { body } : {}) });
        const refusal = res.status === 403 ? ROLE_REFUSAL.exec(res.body?.error?.message ?? "") : null;
        const allowed = least === "anyone" || ROLES.indexOf(role) >= ROLES.indexOf(least);
        if (allowed) {
          if (refusal || res.status === 401) failures.push(`${role} ${op.id}: ${res.status} ${JSON.stringify(res.body)}`);
        } else if (!(res.status === 403 && res.body.error.code === "forbidden" && refusal?.[1] === least)) {
          failures.push(`${role} ${op.id}: expected 403 naming ${least}, got ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
