import { useEffect, useState } from "preact/hooks";
import { api, ok, type Me } from "./api";
import { Notice, Progress } from "./components/ui";
import { HOME, match, useLocation, type Location } from "./router";
import { CertificateScreen } from "./screens/certificate";
import { DevelopersScreen } from "./screens/developers";
import { NewVerificationScreen } from "./screens/new-verification";
import { SettingsScreen } from "./screens/settings";
import { SignInScreen } from "./screens/sign-in";
import { TemplatesScreen } from "./screens/templates";
import { VerificationDetailScreen } from "./screens/verification-detail";
import { VerificationsScreen } from "./screens/verifications";
import { Session } from "./session";

const NAV = [
  { href: "/console/verifications", label: "Verifications", matches: (p: string) => p === HOME || (p.startsWith("/console/verifications") && p !== "/console/verifications/new") },
  { href: "/console/verifications/new", label: "New verification", matches: (p: string) => p === "/console/verifications/new" },
  { href: "/console/templates", label: "Link templates", matches: (p: string) => p.startsWith("/console/templates") },
  { href: "/console/developers", label: "Developers", matches: (p: string) => p.startsWith("/console/developers") },
  { href: "/console/settings", label: "Settings", matches: (p: string) => p.startsWith("/console/settings") },
];

function screenFor(location: Location) {
  const { path } = location;
  if (path === HOME || path === "/console/verifications") return <VerificationsScreen />;
  if (path === "/console/verifications/new") return <NewVerificationScreen />;
  const certificate = match("/console/verifications/:id/certificate", path);
  if (certificate) return <CertificateScreen id={certificate.id!} />;
  const detail = match("/console/verifications/:id", path);
  if (detail) return <VerificationDetailScreen key={detail.id} id={detail.id!} />;
  if (path === "/console/templates") return <TemplatesScreen />;
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

  const signOut = async () => {
    await api.POST("/v1/auth/logout");
    window.location.assign("/console/sign-in");
  };

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
          <span>{me.tenant.display_name}</span>
        </a>
        <button type="button" class="button secondary small menu-toggle" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="main-nav" class={menuOpen ? "open" : ""} aria-label="Console">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={item.matches(props.location.path) ? "page" : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
          <div class="account">
            <span class="who">{me.user.email ?? me.user.phone ?? me.user.id}</span>
            <button type="button" class="button secondary small" onClick={signOut}>
              Sign out
            </button>
          </div>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {screenFor(props.location)}
      </main>
      <div id="announcer" class="visually-hidden" role="status" aria-live="polite" />
    </Session.Provider>
  );
}
