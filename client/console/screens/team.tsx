import { useState } from "preact/hooks";
import { api, ok, type Schemas } from "../api";
import { ListTable } from "../components/list-table";
import { announce, Badge, ConfirmDialog, Dialog, ErrorNotice, Field, LoadState, PageHeader, Section } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { useAction, useLoad, useTitle, type Loaded } from "../lib/hooks";
import { grantable, mayManage, ROLE_DESCRIPTIONS, ROLE_NAMES, useCan, type Role } from "../lib/roles";
import { useSession } from "../session";

type Member = Schemas["Member"];
type Invitation = Schemas["Invitation"];

/** Every member sees the team; admins and owners manage it (owners alone manage owners). */
export function TeamScreen() {
  useTitle("Team");
  const { me } = useSession();
  const can = useCan();
  const members = useLoad(() => ok(api.GET("/v1/members", { params: { query: { limit: 100 } } })), []);
  const invitations = useLoad(async () => (can("admin") ? ok(api.GET("/v1/invitations", { params: { query: { limit: 100 } } })) : undefined), []);
  return (
    <>
      <PageHeader title="Team" subtitle={`The people of ${me.tenant.display_name} and what each may do. You are ${ROLE_NAMES[me.role].toLowerCase()}.`} />
      <div class="stack">
        <Members members={members} />
        {can("admin") ? <Invite onInvited={() => void invitations.reload()} /> : null}
        {can("admin") ? <Invitations invitations={invitations} /> : null}
        <Section title="Roles" id="roles">
          <dl class="facts">
            {(["viewer", "reviewer", "admin", "owner"] as const).map((r) => (
              <div class="fact" key={r}>
                <dt>{ROLE_NAMES[r]}</dt>
                <dd>{ROLE_DESCRIPTIONS[r]}</dd>
              </div>
            ))}
          </dl>
        </Section>
      </div>
    </>
  );
}

const who = (m: Member) => m.email ?? m.phone ?? m.user_id;

function Members(props: { members: Loaded<Schemas["MemberList"]> }) {
  const { me } = useSession();
  const [changing, setChanging] = useState<Member | undefined>(undefined);
  const [removing, setRemoving] = useState<Member | undefined>(undefined);
  const remove = useAction(async (m: Member) => {
    await ok(api.DELETE("/v1/members/{user_id}", { params: { path: { user_id: m.user_id } } }));
    setRemoving(undefined);
    announce(`${who(m)} removed`);
    await props.members.reload();
  });
  // Owners first, then by role, then by address (the API pages by user id).
  const rank = (m: Member) => ["owner", "admin", "reviewer", "viewer"].indexOf(m.role);
  const items = [...(props.members.data?.items ?? [])].sort((a, b) => rank(a) - rank(b) || who(a).localeCompare(who(b)));
  const manageable = (m: Member) => m.user_id !== me.user.id && mayManage(me.role, m.role);
  return (
    <Section title="Members" id="members">
      <LoadState of={props.members} failed="Members could not be loaded" loading="Loading members…" />
      {items.length > 0 ? (
        <ListTable
          caption="Members"
          rows={items}
          rowKey={(m) => m.user_id}
          columns={[
            {
              label: "Member",
              cell: (m) => (
                <>
                  <strong>{who(m)}</strong> {m.display_name ? <span>{m.display_name}</span> : null} {m.user_id === me.user.id ? <Badge tone="info">you</Badge> : null}
                </>
              ),
            },
            { label: "Role", cell: (m) => ROLE_NAMES[m.role] },
            { label: "Joined", cell: (m) => formatDateTime(m.joined_at) },
            items.some(manageable) && {
              label: "Actions",
              hideLabel: true,
              cell: (m) =>
                manageable(m) ? (
                  <span class="inline">
                    <button type="button" class="button secondary small" onClick={() => setChanging(m)}>
                      Change role <span class="visually-hidden">of {who(m)}</span>
                    </button>
                    <button type="button" class="button danger-link small" onClick={() => setRemoving(m)}>
                      Remove <span class="visually-hidden">{who(m)}</span>
                    </button>
                  </span>
                ) : null,
            },
          ]}
        />
      ) : null}
      <ChangeRole
        member={changing}
        onClose={() => setChanging(undefined)}
        onChanged={async (m) => {
          setChanging(undefined);
          announce(`${who(m)} is now ${ROLE_NAMES[m.role].toLowerCase()}`);
          await props.members.reload();
        }}
      />
      <ConfirmDialog
        open={removing !== undefined}
        title={`Remove ${removing ? who(removing) : ""} from the team?`}
        body={<p>Their sessions for this organisation stop at once. They keep their account and any other organisation; invite them again to bring them back.</p>}
        confirm="Remove from the team"
        busy={remove.busy}
        error={remove.error}
        onConfirm={() => removing && void remove.run(removing)}
        onClose={() => {
          setRemoving(undefined);
          remove.clearError();
        }}
      />
    </Section>
  );
}

function ChangeRole(props: { member: Member | undefined; onClose: () => void; onChanged: (m: Member) => Promise<void> }) {
  const { me } = useSession();
  const [role, setRole] = useState<Role | undefined>(undefined);
  const member = props.member;
  const chosen = role ?? member?.role;
  const save = useAction(async () => {
    if (!member || !chosen) return;
    const changed = await ok(api.PATCH("/v1/members/{user_id}", { params: { path: { user_id: member.user_id } }, body: { role: chosen } }));
    setRole(undefined);
    await props.onChanged(changed);
  });
  const close = () => {
    setRole(undefined);
    save.clearError();
    props.onClose();
  };
  return (
    <Dialog open={member !== undefined} title={`Role of ${member ? who(member) : ""}`} onClose={close}>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <fieldset class="decisions">
          <legend>Role</legend>
          {grantable(me.role).map((r) => (
            <span class="check" key={r}>
              <input type="radio" id={`role-${r}`} name="role" value={r} checked={chosen === r} onChange={() => setRole(r)} />
              <label for={`role-${r}`}>
                {ROLE_NAMES[r]} <span class="meta">{ROLE_DESCRIPTIONS[r]}</span>
              </label>
            </span>
          ))}
        </fieldset>
        <ErrorNotice error={save.error} />
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" class="button primary" disabled={save.busy || chosen === member?.role}>
            {save.busy ? "Saving…" : "Save role"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function Invite(props: { onInvited: () => void }) {
  const { me } = useSession();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("reviewer");
  const invite = useAction(async () => {
    const sent = await ok(api.POST("/v1/invitations", { body: { email: email.trim(), role } }));
    setEmail("");
    announce(`Invitation sent to ${sent.email}`);
    props.onInvited();
  });
  return (
    <Section title="Invite someone" id="invite">
      <p class="hint">They get an email with a link that works once, within 7 days. Someone new is signed in by it and added with this role; someone who already has an account confirms there and joins at their next sign-in.</p>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void invite.run();
        }}
      >
        <Field label="Email" error={invite.error?.fields.email}>
          {(c) => <input {...c} type="email" required autoComplete="off" maxLength={254} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}
        </Field>
        <Field label="Role" error={invite.error?.fields.role}>
          {(c) => (
            <select {...c} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              {grantable(me.role).map((r) => (
                <option key={r} value={r}>
                  {ROLE_NAMES[r]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit" class="button primary" disabled={invite.busy}>
          {invite.busy ? "Sending…" : "Send invitation"}
        </button>
      </form>
      {invite.error && Object.keys(invite.error.fields).length === 0 ? <ErrorNotice error={invite.error} /> : null}
    </Section>
  );
}

function Invitations(props: { invitations: Loaded<Schemas["InvitationList"] | undefined> }) {
  const { me } = useSession();
  const [revoking, setRevoking] = useState<Invitation | undefined>(undefined);
  const resend = useAction(async (i: Invitation) => {
    await ok(api.POST("/v1/invitations/{id}/resend", { params: { path: { id: i.id } } }));
    announce(`Invitation sent to ${i.email} again`);
    await props.invitations.reload();
  });
  const revoke = useAction(async (i: Invitation) => {
    await ok(api.DELETE("/v1/invitations/{id}", { params: { path: { id: i.id } } }));
    setRevoking(undefined);
    announce(`Invitation to ${i.email} revoked`);
    await props.invitations.reload();
  });
  const items = props.invitations.data?.items ?? [];
  return (
    <Section title="Invitations" id="invitations">
      <LoadState of={props.invitations} failed="Invitations could not be loaded" loading="Loading invitations…" empty={items.length === 0 && "No open invitations."} />
      <ErrorNotice error={resend.error} />
      {items.length > 0 ? (
        <ListTable
          caption="Open invitations"
          rows={items}
          rowKey={(i) => i.id}
          columns={[
            { label: "Email", cell: (i) => <strong>{i.email}</strong> },
            { label: "Role", cell: (i) => ROLE_NAMES[i.role] },
            {
              label: "Status",
              cell: (i) =>
                i.status === "awaiting_sign_in" ? (
                  <Badge tone="info" title="They already have an account: the membership is added when they next sign in.">confirmed, joins at their next sign-in</Badge>
                ) : i.status === "pending" ? (
                  <Badge tone="info">pending until {formatDateTime(i.expires_at)}</Badge>
                ) : (
                  <Badge tone="warn">expired {formatDateTime(i.expires_at)}</Badge>
                ),
            },
            { label: "Sent", cell: (i) => `${formatDateTime(i.sent_at)}${i.send_count > 1 ? ` (${i.send_count} times)` : ""}` },
            {
              label: "Actions",
              hideLabel: true,
              cell: (i) =>
                mayManage(me.role, i.role) ? (
                  <span class="inline">
                    {i.status === "awaiting_sign_in" ? null : (
                      <button type="button" class="button secondary small" disabled={resend.busy} onClick={() => void resend.run(i)}>
                        Resend <span class="visually-hidden">to {i.email}</span>
                      </button>
                    )}
                    <button type="button" class="button danger-link small" onClick={() => setRevoking(i)}>
                      Revoke <span class="visually-hidden">the invitation to {i.email}</span>
                    </button>
                  </span>
                ) : null,
            },
          ]}
        />
      ) : null}
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke the invitation to ${revoking?.email ?? ""}?`}
        body={<p>Its link stops working. You can invite the address again later.</p>}
        confirm="Revoke the invitation"
        busy={revoke.busy}
        error={revoke.error}
        onConfirm={() => revoking && void revoke.run(revoking)}
        onClose={() => {
          setRevoking(undefined);
          revoke.clearError();
        }}
      />
    </Section>
  );
}
