import { z } from "zod";
import { settings } from "../env";
import { timingSafeEqualStrings } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { oidcProvider } from "./oidc";

/** A proven sign-in: (`oidc:<issuer>`, sub), (`email`, address), (`phone`, number) or (`dev`, address). */
export interface Identity {
  provider: string;
  subject: string;
  /** Set only when the provider vouches for it (a verified email): used to find or label the user. */
  email?: string;
  phone?: string;
  displayName?: string;
}

/** What the browser carries between login and callback (in a signed, HttpOnly, 10-minute cookie). */
export interface OAuthFlow {
  provider: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
}

/** An OAuth 2.0 / OpenID Connect identity provider for dashboard sign-in. */
export interface IdentityProvider {
  readonly name: string;
  /** Where to send the browser to authenticate (authorization code + PKCE S256 + state + nonce). */
  authorizationUrl(flow: OAuthFlow, redirectUri: string, loginHint?: string): Promise<URL>;
  /** Checks the callback against the flow and exchanges the code; throws `unauthorized` on any failure. */
  complete(callbackUrl: URL, flow: OAuthFlow, redirectUri: string): Promise<Identity>;
}

export function signInFailed(reason: string): ApiError {
  return new ApiError("unauthorized", `Sign-in failed: ${reason}.`);
}

/** The provider named in `/v1/auth/{provider}/…`, or null when it is not configured here. */
export function identityProvider(env: Env, name: string): IdentityProvider | null {
  if (name === "oidc") {
    if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET) return null;
    const issuer = new URL(env.OIDC_ISSUER);
    return oidcProvider({
      issuer,
      clientId: env.OIDC_CLIENT_ID,
      clientSecret: env.OIDC_CLIENT_SECRET,
      // Plain-http issuers only for a loopback provider in local development and tests.
      allowHttp: settings(env).isLocal && issuer.protocol === "http:",
    });
  }
  if (name === "dev" && settings(env).isLocal) return devProvider(settings(env).baseUrl);
  return null;
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
      const email = z.string().regex(/^[^\s@]+@[^\s@]+$/).safeParse(callbackUrl.searchParams.get("code"));
      if (!email.success) throw signInFailed("the dev provider needs an email address as login_hint");
      return { provider: "dev", subject: email.data.toLowerCase(), email: email.data, displayName: "Developer" };
    },
  };
}
