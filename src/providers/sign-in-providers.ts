import { settings } from "../env";
import { timingSafeEqualStrings } from "../lib/crypto";
import { signInFailed, type IdentityProvider } from "./identity";
import { oidcProvider } from "./oidc";

/**
 * The provider named in `/v1/auth/{provider}/…`, or null when it is not configured here: `oidc` when
 * configured by env, and `dev` only for a request to local development over loopback
 * (`localRequest`, from `isLocalRequest`).
 */
export function identityProvider(env: Env, name: string, options: { localRequest: boolean }): IdentityProvider | null {
  if (name === "oidc") {
    if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET) return null;
    const issuer = new URL(env.OIDC_ISSUER);
    return oidcProvider({
      issuer,
      clientId: env.OIDC_CLIENT_ID,
      clientSecret: env.OIDC_CLIENT_SECRET,
      // Plain-http issuers only for a loopback provider in local development and tests.
      allowHttp: options.localRequest && issuer.protocol === "http:",
    });
  }
  if (name === "dev" && options.localRequest) return devProvider(settings(env).baseUrl);
  return null;
}

/** What `GET /v1/auth/providers` lists: the methods that can sign someone in on this deployment. */
export function availableProviders(env: Env, options: { localRequest: boolean }): Array<{ id: "oidc" | "magic_link" | "dev"; kind: "redirect" | "email"; name: string; login_url?: string }> {
  const out: ReturnType<typeof availableProviders> = [];
  if (identityProvider(env, "oidc", options)) out.push({ id: "oidc", kind: "redirect", name: "Single sign-on", login_url: "/v1/auth/oidc/login" });
  // Without an email API the link would only be recorded, never sent (local development reads the outbox).
  if (settings(env).isLocal || (env.EMAIL_API_URL && env.EMAIL_API_KEY && env.EMAIL_FROM)) out.push({ id: "magic_link", kind: "email", name: "Email me a sign-in link" });
  if (identityProvider(env, "dev", options)) out.push({ id: "dev", kind: "redirect", name: "Developer sign-in (local only)", login_url: "/v1/auth/dev/login" });
  return out;
}

export const DEV_DEFAULT_EMAIL = "dev@localhost";

/**
 * Local development only: signs in as any address without an external provider (the login
 * redirects straight to the callback with the address as the "code"; the state is still checked).
 * `npm start` seeds `dev@localhost` as a user of the dev tenant.
 */
function devProvider(baseUrl: string): IdentityProvider {
  return {
    name: "dev",
    async authorizationUrl(flow, redirectUri, loginHint) {
      const url = new URL(redirectUri, baseUrl);
      url.searchParams.set("code", loginHint ?? DEV_DEFAULT_EMAIL);
      url.searchParams.set("state", flow.state);
      return url;
    },
    async complete(callbackUrl, flow) {
      const state = callbackUrl.searchParams.get("state") ?? "";
      if (!(await timingSafeEqualStrings(state, flow.state))) throw signInFailed("state mismatch");
      const email = callbackUrl.searchParams.get("code") ?? "";
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw signInFailed("the dev provider needs an email address as login_hint");
      return { provider: "dev", subject: email.toLowerCase(), email, displayName: "Developer" };
    },
  };
}
