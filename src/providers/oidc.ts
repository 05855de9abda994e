import * as oauth from "oauth4webapi";
import { signInFailed, type IdentityProvider } from "./identity";

/**
 * A generic OpenID Connect provider, found by discovery from its issuer URL. oauth4webapi (by the
 * author of jose; Web Crypto + fetch only, so it runs in workerd) does the protocol checks we must
 * not hand-roll: the `state` and RFC 9207 `iss` of the callback, PKCE, the token response, and the
 * ID token's issuer, audience, expiry, algorithm and `nonce`.
 */
export interface OidcConfig {
  issuer: URL;
  clientId: string;
  clientSecret: string;
  /** http issuers are refused unless this is set (loopback provider in development and tests). */
  allowHttp: boolean;
}

const SCOPES = "openid email profile";
const DISCOVERY_TTL_MS = 60 * 60 * 1000;

/** Discovery documents per issuer: an optimisation only (a miss re-fetches), so isolate memory is fine. */
const discovered = new Map<string, { server: oauth.AuthorizationServer; fetchedAt: number }>();

async function discover(config: OidcConfig): Promise<oauth.AuthorizationServer> {
  const key = config.issuer.href;
  const cached = discovered.get(key);
  if (cached && cached.fetchedAt > Date.now() - DISCOVERY_TTL_MS) return cached.server;
  let server: oauth.AuthorizationServer;
  try {
    const response = await oauth.discoveryRequest(config.issuer, { algorithm: "oidc", ...requestOptions(config) });
    server = await oauth.processDiscoveryResponse(config.issuer, response);
  } catch {
    throw signInFailed("the identity provider could not be reached");
  }
  discovered.set(key, { server, fetchedAt: Date.now() });
  return server;
}

function requestOptions(config: OidcConfig) {
  return { [oauth.allowInsecureRequests]: config.allowHttp, signal: AbortSignal.timeout(10_000) };
}

export function oidcProvider(config: OidcConfig): IdentityProvider {
  const client: oauth.Client = { client_id: config.clientId };
  return {
    name: "oidc",
    async authorizationUrl(flow, redirectUri, loginHint) {
      const server = await discover(config);
      if (!server.authorization_endpoint) throw signInFailed("the identity provider has no authorization endpoint");
      const url = new URL(server.authorization_endpoint);
      url.searchParams.set("client_id", config.clientId);
      url.searchParams.set("response_type", "code");
      url.searchParams.set("redirect_uri", redirectUri);
      url.searchParams.set("scope", SCOPES);
      url.searchParams.set("state", flow.state);
      url.searchParams.set("nonce", flow.nonce);
      url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(flow.codeVerifier));
      url.searchParams.set("code_challenge_method", "S256");
      if (loginHint) url.searchParams.set("login_hint", loginHint);
      return url;
    },

    async complete(callbackUrl, flow, redirectUri) {
      const server = await discover(config);
      let params: URLSearchParams;
      try {
        params = oauth.validateAuthResponse(server, client, callbackUrl, flow.state);
      } catch (err) {
        if (err instanceof oauth.AuthorizationResponseError) throw signInFailed(`the identity provider answered ${err.error}`);
        throw signInFailed("state mismatch or malformed callback");
      }
      let claims: oauth.IDToken | undefined;
      try {
        const response = await oauth.authorizationCodeGrantRequest(
          server,
          client,
          oauth.ClientSecretBasic(config.clientSecret),
          params,
          redirectUri,
          flow.codeVerifier,
          requestOptions(config),
        );
        const tokens = await oauth.processAuthorizationCodeResponse(server, client, response, { expectedNonce: flow.nonce, requireIdToken: true });
        claims = oauth.getValidatedIdTokenClaims(tokens);
      } catch {
        // invalid_grant (wrong code, PKCE verifier mismatch), a bad ID token, or the provider down.
        throw signInFailed("the identity provider refused the authorization code");
      }
      if (!claims) throw signInFailed("no ID token");
      const email = typeof claims.email === "string" && claims.email_verified === true ? claims.email : undefined;
      const name = typeof claims.name === "string" && claims.name.trim() ? claims.name.trim().slice(0, 100) : undefined;
      return {
        provider: `oidc:${server.issuer}`,
        subject: claims.sub,
        ...(email ? { email } : {}),
        ...(name ? { displayName: name } : {}),
      };
    },
  };
}
