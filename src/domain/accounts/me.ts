import { asc, eq } from "drizzle-orm";
import type { Role } from "../../auth/roles";
import type { Db } from "../../db/client";
import { memberships, tenants, users } from "../../db/schema";

interface TenantRef {
  id: string;
  slug: string;
  display_name: string;
}

/** `GET /v1/me`: the user, the active tenant and their role there, and every membership. */
export interface MeView {
  user: { id: string; email?: string; phone?: string; display_name?: string };
  tenant: TenantRef;
  role: Role;
  memberships: Array<{ tenant: TenantRef; role: Role }>;
}

/**
 * The signed-in user as a member of `tenantId`, in one round trip (every console page starts with
 * this read); null when they are not (any more) a member of it.
 */
export async function readMe(db: Db, userId: string, tenantId: string): Promise<MeView | null> {
  const [[user], rows] = await db.batch([
    db.select().from(users).where(eq(users.id, userId)).limit(1),
    db
      .select({ role: memberships.role, id: tenants.id, slug: tenants.slug, displayName: tenants.displayName })
      .from(memberships)
      .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
      .where(eq(memberships.userId, userId))
      .orderBy(asc(memberships.createdAt), asc(memberships.tenantId)),
  ]);
  const all = rows.map((r) => ({ tenant: { id: r.id, slug: r.slug, display_name: r.displayName }, role: r.role }));
  const active = all.find((m) => m.tenant.id === tenantId);
  if (!user || !active) return null;
  return {
    user: {
      id: user.id,
      ...(user.email ? { email: user.email } : {}),
      ...(user.phone ? { phone: user.phone } : {}),
      ...(user.displayName ? { display_name: user.displayName } : {}),
    },
    tenant: active.tenant,
    role: active.role,
    memberships: all,
  };
}
