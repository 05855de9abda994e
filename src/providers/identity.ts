import { ApiError } from "../lib/errors";

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
