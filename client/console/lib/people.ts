import { api, ok, type Schemas } from "../api";
import { useSession } from "../session";
import { useLoad } from "./hooks";

/** One team read shared by the panels of a screen (each asks within milliseconds of the others). */
const FRESH_MS = 30_000;
let team: { tenantId: string; at: number; members: Promise<Schemas["MemberList"]> } | null = null;

function loadTeam(tenantId: string): Promise<Schemas["MemberList"]> {
  if (!team || team.tenantId !== tenantId || Date.now() - team.at > FRESH_MS) {
    const members = ok(api.GET("/v1/members", { params: { query: { limit: 100 } } }));
    team = { tenantId, at: Date.now(), members };
    members.catch(() => (team = null));
  }
  return team.members;
}

/**
 * Names for the ids the API records as actors (`usr_…` members, `key_…` API keys): the member's
 * email or phone, "you" for the signed-in member, and the id itself only for someone no longer on
 * the team. Every role may read the team.
 */
export function useWho(): (id: string) => string {
  const { me } = useSession();
  const members = useLoad(() => loadTeam(me.tenant.id), [me.tenant.id]);
  return (id) => {
    if (id === me.user.id) return "you";
    if (id.startsWith("key_")) return `an API key (${id})`;
    const member = members.data?.items.find((m) => m.user_id === id);
    return member?.email ?? member?.phone ?? member?.display_name ?? id;
  };
}
