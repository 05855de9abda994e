import { useState } from "preact/hooks";
import { api, ok, type Schemas } from "../api";
import { ListTable } from "../components/list-table";
import { ErrorNotice, LoadState, PageHeader } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { useAction, useLoad, useTitle } from "../lib/hooks";
import { navigate, useLocation } from "../router";

type Entry = Schemas["AuditEntry"];
type Action = Schemas["AuditAction"];

const PAGE = 50;

/** Each action in words (the filter's options, and the "What" column). */
const ACTIONS: Record<Action, string> = {
  "member.invited": "Invited a member",
  "member.joined": "Joined the team",
  "member.role_changed": "Changed a member's role",
  "member.removed": "Removed a member",
  "invitation.resent": "Sent an invitation again",
  "invitation.revoked": "Revoked an invitation",
  "api_key.created": "Created an API key",
  "api_key.revoked": "Revoked an API key",
  "webhook_secret.rotated": "Rotated the webhook secret",
  "webhook_secret.revealed": "Revealed the webhook secret",
  "settings.updated": "Changed the settings",
  "domain.claimed": "Started proving a domain",
  "domain.verified": "Proved a domain",
  "domain.removed": "Stopped using a domain",
  "domain.dropped": "Domain dropped (its DNS record is gone)",
  "template.published": "Published a link template",
  "template.revoked": "Revoked a link template",
  "verification.reviewed": "Reviewed a verification",
  "verification.redacted": "Erased a verification's evidence",
  "verification.finalized": "Finalized a case",
  "webhook_delivery.retried": "Retried a webhook delivery",
  "certificate_link.created": "Shared a certificate link",
  "certificate_link.revoked": "Revoked a certificate link",
  "phone.registered": "Registered a bot phone",
  "phone.removed": "Removed a bot phone",
  "session.signed_in": "Signed in",
  "session.signed_out_everywhere": "Signed everyone out",
};

const SIGN_IN_METHODS: Record<string, string> = {
  magic_link: "by email link",
  oidc: "by single sign-on",
  dev: "by developer sign-in",
  phone_code: "by messaging code",
  invitation: "by invitation",
  switch_tenant: "by switching organisation",
};

const words = (value: unknown) => String(value).replaceAll("_", " ");

/** What changed, in words: the known details of each action, anything else as key: value. */
function detailsText(entry: Entry): string {
  const d = entry.details ?? {};
  switch (entry.action) {
    case "member.role_changed":
      return `${words(d.from)} → ${words(d.to)}`;
    case "member.invited":
    case "invitation.resent":
    case "invitation.revoked":
    case "member.removed":
      return d.role ? `as ${words(d.role)}` : "";
    case "member.joined":
      return `as ${words(d.role)}${d.via ? ` (${SIGN_IN_METHODS[String(d.via)] ?? words(d.via)})` : ""}`;
    case "phone.removed":
      return d.with_member ? "with the member who signed in with it" : "";
    case "session.signed_in":
      return SIGN_IN_METHODS[String(d.method)] ?? "";
    case "domain.dropped":
      return d.reason === "record_missing" ? "the TXT record is gone" : "the DNS record could not be looked up for 3 days";
    case "domain.claimed":
    case "domain.verified":
    case "domain.removed":
      return ""; // the domain is the entry's target
    case "settings.updated":
      return Object.entries((d.changed ?? {}) as Record<string, unknown>)
        .map(([name, value]) => settingInWords(name, value))
        .join("; ");
    default:
      return Object.entries(d)
        .map(([k, v]) => `${words(k)}: ${typeof v === "object" && v !== null ? Object.entries(v).map(([a, b]) => `${words(a)} ${String(b)}`).join(", ") : String(v)}`)
        .join("; ");
  }
}

/** A setting as the settings screen names it, with the value it was given (null: the screen's empty or default choice). */
function settingInWords(name: string, value: unknown): string {
  switch (name) {
    case "display_name":
      return `display name: ${String(value)}`;
    case "retention_days":
      return value === null ? "keep evidence: everything" : `keep evidence: ${String(value)} days`;
    case "ai_detection_provider":
      return `detection provider: ${value === null ? "this service's default" : String(value)}`;
    case "share_reuse_index":
      return `shared reuse index: ${value ? "on" : "off"}`;
    default:
      return `${words(name)}: ${String(value)}`;
  }
}

function Target(props: { entry: Entry }) {
  const { target, action } = props.entry;
  const text = target.label ?? target.id;
  if (target.type === "verification") return <a href={`/console/verifications/${target.id}`}>{target.id}</a>;
  // A domain's entries target its tenant, labelled with the domain: named as what is shown.
  const kind = action.startsWith("domain.") ? "domain" : target.type.replaceAll("_", " ");
  return (
    <>
      <span class="meta">{kind}</span> <bdi class={target.label ? "break" : "mono"}>{text}</bdi>
    </>
  );
}

/** Who did what, newest first (admins and owners); filters live in the URL, like the verifications'. */
export function AuditLogScreen() {
  useTitle("Audit log");
  const location = useLocation();
  const action = (location.query.get("action") ?? "") as Action | "";
  const actor = location.query.get("actor") ?? "";
  const [rows, setRows] = useState<Entry[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const query = { limit: PAGE, ...(action ? { action } : {}), ...(actor ? { actor_id: actor } : {}) };
  const first = useLoad(async () => {
    const page = await ok(api.GET("/v1/audit-log", { params: { query } }));
    setRows(page.items);
    setCursor(page.next_cursor);
    return page;
  }, [action, actor]);
  const more = useAction(async () => {
    if (!cursor) return;
    const page = await ok(api.GET("/v1/audit-log", { params: { query: { ...query, cursor } } }));
    setRows((current) => [...current, ...page.items]);
    setCursor(page.next_cursor);
  });
  const members = useLoad(() => ok(api.GET("/v1/members", { params: { query: { limit: 100 } } })), []);
  const keys = useLoad(() => ok(api.GET("/v1/api-keys")), []);
  const setFilter = (name: "action" | "actor", value: string) => {
    const next = new URLSearchParams(location.query);
    if (value) next.set(name, value);
    else next.delete(name);
    const q = next.toString();
    navigate(`/console/audit-log${q ? `?${q}` : ""}`, { replace: true });
  };

  return (
    <>
      <PageHeader title="Audit log" subtitle="Every administrative or evidence action by a member or an API key. Entries are never changed or removed." />
      <form class="filters" role="search" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="a-action">Action</label>
          <select id="a-action" value={action} onChange={(e) => setFilter("action", e.currentTarget.value)}>
            <option value="">Any</option>
            {(Object.keys(ACTIONS) as Action[]).map((a) => (
              <option key={a} value={a}>
                {ACTIONS[a]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="a-actor">Who</label>
          <select id="a-actor" value={actor} onChange={(e) => setFilter("actor", e.currentTarget.value)}>
            <option value="">Anyone</option>
            <optgroup label="Members">
              {(members.data?.items ?? []).map((m) => (
                <option key={m.user_id} value={m.user_id}>
                  {m.email ?? m.phone ?? m.user_id}
                </option>
              ))}
            </optgroup>
            <optgroup label="API keys">
              {(keys.data?.items ?? []).map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name ?? k.prefix}
                </option>
              ))}
            </optgroup>
          </select>
        </div>
      </form>
      <LoadState of={first} failed="The audit log could not be loaded" loading="Loading the audit log…" empty={rows.length === 0 && "Nothing recorded yet."} />
      {rows.length > 0 ? (
        <ListTable
          caption="Audit log entries, newest first"
          rows={rows}
          rowKey={(e) => e.id}
          columns={[
            { label: "When", cell: (e) => formatDateTime(e.occurred_at) },
            {
              label: "Who",
              cell: (e) => (
                <>
                  <strong>{e.actor.label ?? e.actor.id}</strong> <span class="meta">{e.actor.type === "api_key" ? "API key" : e.actor.type === "service" ? "the service" : "member"}</span>
                </>
              ),
            },
            {
              label: "What",
              cell: (e) => (
                <>
                  {ACTIONS[e.action]}
                  {detailsText(e) ? <span class="meta"> {detailsText(e)}</span> : null}
                </>
              ),
            },
            { label: "Target", cell: (e) => <Target entry={e} /> },
            {
              label: "From",
              cell: (e) => (
                <>
                  <span class="mono">{e.client.ip ?? "—"}</span>
                  {e.client.user_agent ? <span class="meta ua" title={e.client.user_agent}> {e.client.user_agent}</span> : null}
                </>
              ),
            },
          ]}
        />
      ) : null}
      <ErrorNotice error={more.error} />
      {cursor ? (
        <p>
          <button type="button" class="button secondary" disabled={more.busy} onClick={() => void more.run()}>
            {more.busy ? "Loading…" : "Load more"}
          </button>
        </p>
      ) : null}
    </>
  );
}
