import { useEffect, useState } from "preact/hooks";
import { api, ok, type Me } from "./api";
import { isolated, shortened } from "./lib/format";
import { ErrorNotice, Notice, PageHeader, Progress } from "./components/ui";
import { useAction, useRefreshOnReturn } from "./lib/hooks";
import { announceSessionChanged, onSessionChanged } from "./lib/session-channel";
import { atLeast, ROLE_NAMES, type Role } from "./lib/roles";
import { HOME, leaveAfterSignOut, match, useLocation, type Location } from "./router";
import { CertificateScreen } from "./screens/certificate";
import { DevelopersScreen } from "./screens/developers";
import { NewVerificationScreen } from "./screens/new-verification";
import { AuditLogScreen } from "./screens/audit-log";
import { SettingsScreen } from "./screens/settings";
import { SignInScreen } from "./screens/sign-in";
import { TeamScreen } from "./screens/team";
import { TemplatesScreen } from "./screens/templates";
import { VerificationDetailScreen } from "./screens/verification-detail";
import { VerificationsScreen } from "./screens/verifications";
import { Session } from "./session";

/** The characters of an organisation's name the switcher shows: with the role after it, an option fits the bar at 1 280 px. */
const SWITCHER_NAME_MAX = 24;

/** The console's screens; `role`: the least role whose members see the entry (the service checks each request anyway). */
const NAV: Array<{ href: string; label: string; role: Role; matches: (p: string) => boolean }> = [
  { href: "/console/verifications", label: "Verifications", role: "viewer", matches: (p) => p === HOME || (p.startsWith("/console/verifications") && p !== "/console/verifications/new") },
  { href: "/console/verifications/new", label: "New verification", role: "reviewer", matches: (p) => p === "/console/verifications/new" },
  { href: "/console/templates", label: "Link templates", role: "viewer", matches: (p) => p.startsWith("/console/templates") },
  { href: "/console/team", label: "Team", role: "viewer", matches: (p) => p.startsWith("/console/team") },
  { href: "/console/audit-log", label: "Audit log", role: "admin", matches: (p) => p.startsWith("/console/audit-log") },
  { href: "/console/developers", label: "Developers", role: "viewer", matches: (p) => p.startsWith("/console/developers") },
  { href: "/console/settings", label: "Settings", role: "viewer", matches: (p) => p.startsWith("/console/settings") },
];

/** A screen above the member's role: its heading stays (focus and the page outline need one), the notice says why it is empty. */
function NotForRole(props: { role: Role; title: string; what: string }) {
  return (
    <>
      <PageHeader title={props.title} />
      <Notice tone="warning">
        {props.what} needs the {ROLE_NAMES[props.role].toLowerCase()} role or higher. <a href={HOME}>Go to the verifications</a>.
      </Notice>
    </>
  );
}

function screenFor(location: Location, role: Role) {
  const { path } = location;
  if (path === HOME || path === "/console/verifications") return <VerificationsScreen />;
  if (path === "/console/verifications/new") return atLeast(role, "reviewer") ? <NewVerificationScreen createdId={location.query.get("created")} /> : <NotForRole role="reviewer" title="New verification" what="Creating verifications" />;
  const certificate = match("/console/verifications/:id/certificate", path);
  if (certificate) return <CertificateScreen id={certificate.id!} />;
  const detail = match("/console/verifications/:id", path);
  if (detail) return <VerificationDetailScreen key={detail.id} id={detail.id!} />;
  if (path === "/console/templates") return <TemplatesScreen query={location.query} />;
  if (path === "/console/team") return <TeamScreen />;
  if (path === "/console/audit-log") return atLeast(role, "admin") ? <AuditLogScreen /> : <NotForRole role="admin" title="Audit log" what="The audit log" />;
  if (path === "/console/developers") return <DevelopersScreen />;
  if (path === "/console/settings") return <SettingsScreen />;
  return (
    <Notice tone="warning">
      There is no console page at this address. <a href={HOME}>Go to the verifications</a>.
    </Notice>
  );
}

export function App() {
  const location = useLocation();
  if (location.path === "/console/sign-in") return <SignInScreen query={location.query} />;
  return <SignedIn location={location} />;
}

function SignedIn(props: { location: Location }) {
  const [me, setMe] = useState<Me | undefined>(undefined);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    ok(api.GET("/v1/me")).then(setMe, (err: Error) => setFailed(err.message));
  }, []);
  useEffect(() => setMenuOpen(false), [props.location.path]);
  useSameSession(me);

  const signOut = () => leaveAfterSignOut(api.POST("/v1/auth/logout"));

  if (failed) return <Notice tone="error">The console could not load your account: {failed}</Notice>;
  if (!me) return <Progress label="Loading the console…" />;
  return (
    <Session.Provider value={{ me, setMe }}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={HOME}>
          <span class="brand-mark" aria-hidden="true" />
          <bdi>{me.tenant.display_name}</bdi>
        </a>
        <button type="button" class="button secondary small menu-toggle" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="main-nav" class={menuOpen ? "open" : ""} aria-label="Console">
          <ul>
            {NAV.filter((item) => atLeast(me.role, item.role)).map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={item.matches(props.location.path) ? "page" : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
          <div class="account">
            {me.memberships.length > 1 ? <TenantSwitcher me={me} /> : null}
            <span class="who">{me.user.email ?? me.user.phone ?? me.user.id}</span>
            <button type="button" class="button secondary small" onClick={signOut} title="Ends your sessions on every device">
              Sign out
            </button>
          </div>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {screenFor(props.location, me.role)}
      </main>
      <div id="announcer" class="visually-hidden" role="status" aria-live="polite" />
    </Session.Provider>
  );
}

/**
 * Keeps this tab on the organisation and user the session holds: when another tab switches (it
 * announces it), or when the operator comes back to this tab, `/v1/me` is read again, and a tab
 * whose session now names another organisation or user reloads into it rather than acting there
 * under the old name (settings probe of 2026-12-04).
 */
function useSameSession(me: Me | undefined): void {
  const check = async () => {
    if (!me) return;
    const now = await ok(api.GET("/v1/me")).catch(() => undefined);
    if (now && (now.tenant.id !== me.tenant.id || now.user.id !== me.user.id)) window.location.reload();
  };
  useEffect(() => onSessionChanged(() => void check()), [me?.tenant.id, me?.user.id]);
  useRefreshOnReturn(check);
}

/**
 * The organisations the user belongs to, when more than one: switching opens a new session for the
 * chosen one (`POST /v1/auth/switch-tenant`) and reloads the console into it.
 */
function TenantSwitcher(props: { me: Me }) {
  const [tenantId, setTenantId] = useState(props.me.tenant.id);
  const change = useAction(async () => {
    await ok(api.POST("/v1/auth/switch-tenant", { body: { tenant_id: tenantId } }));
    announceSessionChanged();
    window.location.assign(HOME);
  });
  return (
    <form
      class="switcher"
      onSubmit={(e) => {
        e.preventDefault();
        if (tenantId !== props.me.tenant.id) void change.run();
      }}
    >
      <label class="visually-hidden" for="tenant-switch">
        Organisation
      </label>
      <select id="tenant-switch" value={tenantId} onChange={(e) => setTenantId(e.currentTarget.value)}>
        {props.me.memberships.map((m) => (
          // A long name is shortened so the role after it stays in view (the select cannot wrap).
          <option key={m.tenant.id} value={m.tenant.id} title={m.tenant.display_name}>
            {isolated(shortened(m.tenant.display_name, SWITCHER_NAME_MAX))} ({ROLE_NAMES[m.role].toLowerCase()})
          </option>
        ))}
      </select>
      <button type="submit" class="button secondary small" disabled={change.busy || tenantId === props.me.tenant.id}>
        {change.busy ? "Switching…" : "Switch"}
      </button>
      <ErrorNotice error={change.error} />
    </form>
  );
}
