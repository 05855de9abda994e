import type { IncomingMessage } from "node:http";
import { OAuth2Server } from "oauth2-mock-server";

/**
 * A real OpenID Connect provider on loopback (oauth2-mock-server: discovery, authorize, token with
 * PKCE checks, RS256-signed ID tokens carrying the request's nonce). Its /authorize signs the
 * browser in at once; the `login_hint` of the authorization request picks who (the subject and a
 * verified `<hint>@example.test` email), so each test can sign in as a fresh person.
 */

export async function startOidcProvider(port: number): Promise<OAuth2Server> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(port, "127.0.0.1");
  server.issuer.url = `http://127.0.0.1:${port}`;

  const personByCode = new Map<string, string>();
  server.service.on("beforeAuthorizeRedirect", (redirect: { url: URL }, req: IncomingMessage & { query?: Record<string, unknown> }) => {
    const hint = req.query?.login_hint;
    const code = redirect.url.searchParams.get("code");
    if (typeof hint === "string" && code) personByCode.set(code, hint);
  });
  server.service.on("beforeTokenSigning", (token: { payload: Record<string, unknown> }, req: IncomingMessage & { body?: Record<string, unknown> }) => {
    const code = req.body?.code;
    const person = typeof code === "string" ? personByCode.get(code) : undefined;
    if (!person) return;
    Object.assign(token.payload, { sub: `sub-${person}`, email: `${person}@example.test`, email_verified: true, name: `Test ${person}` });
  });
  return server;
}
