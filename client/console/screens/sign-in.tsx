import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { ErrorNotice, Field, Notice, Progress } from "../components/ui";
import { useAction, useLoad, useTitle } from "../lib/hooks";
import { HOME } from "../router";

/** Why the service sent the browser back here (`?error=`); worded here, never taken from the URL. */
const ERRORS: Record<string, string> = {
  expired: "That sign-in took too long or was started in another browser. Please start again.",
  cancelled: "Sign-in was cancelled at the identity provider.",
  failed: "The identity provider could not confirm who you are. Please try again, or use another method.",
  unavailable: "That sign-in method is not available here.",
};

export function SignInScreen(props: { query: URLSearchParams }) {
  useTitle("Sign in");
  const returnTo = safePath(props.query.get("return_to")) ?? HOME;
  const error = props.query.get("error");
  const providers = useLoad(() => ok(api.GET("/v1/auth/providers")), []);
  const [email, setEmail] = useState("");
  const [sentTo, setSentTo] = useState<string | undefined>(undefined);
  const send = useAction(async (address: string) => {
    await ok(api.POST("/v1/auth/magic-link", { body: { email: address, return_to: returnTo } }));
    setSentTo(address);
  });
  const list = providers.data?.providers ?? [];
  const local = list.some((p) => p.id === "dev");

  return (
    <main id="main" class="sign-in">
      <div class="sign-in-card">
        <p class="brand">
          <span class="brand-mark" aria-hidden="true" /> Verification console
        </p>
        <h1>Sign in</h1>
        {error ? <Notice tone="error">{ERRORS[error] ?? ERRORS.failed}</Notice> : null}
        {props.query.get("signed_out") === "everywhere" && !error ? (
          <Notice tone="success">You are signed out here and on every other device where you were signed in.</Notice>
        ) : null}
        {providers.loading && !providers.data ? <Progress label="Loading sign-in options…" /> : null}
        <ErrorNotice error={providers.error} what="Sign-in options could not be loaded" />
        {list
          .filter((p) => p.kind === "redirect" && p.login_url)
          .map((p) => (
            <a key={p.id} class={`button ${p.id === "dev" ? "secondary" : "primary"} block`} href={`${p.login_url}?return_to=${encodeURIComponent(returnTo)}`}>
              {p.id === "dev" ? "Developer sign-in (local only)" : `Continue with ${p.name.toLowerCase()}`}
            </a>
          ))}
        {list.some((p) => p.id === "magic_link") ? (
          sentTo ? (
            <Notice tone="success">
              If <strong>{sentTo}</strong> can sign in, a link is on its way. It works once, within 15 minutes.
              {local ? (
                <>
                  {" "}
                  Locally, emails land in <a href="/v1/dev/outbox">/v1/dev/outbox</a>.
                </>
              ) : null}
            </Notice>
          ) : (
            <form
              class="stack"
              onSubmit={(e) => {
                e.preventDefault();
                void send.run(email.trim());
              }}
            >
              {list.length > 1 ? <p class="divider">or</p> : null}
              <Field label="Work email" error={send.error?.fields.email ?? (send.error && !send.error.fields.email ? send.error.message : undefined)}>
                {(control) => (
                  <input {...control} type="email" autoComplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
                )}
              </Field>
              <button type="submit" class="button primary block" disabled={send.busy}>
                {send.busy ? "Sending…" : "Email me a sign-in link"}
              </button>
            </form>
          )
        ) : null}
        {providers.data && list.length === 0 ? <Notice tone="warning">No sign-in method is configured on this deployment. Ask its operator to set up OpenID Connect or email.</Notice> : null}
      </div>
    </main>
  );
}

/** A path of this service only (the server checks again; this keeps the form's own links sane). */
function safePath(value: string | null): string | undefined {
  return value && /^\/(?![/\\])\S*$/.test(value) ? value : undefined;
}
