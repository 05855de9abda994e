import { authenticate, type AuthOptions } from "./middleware";

/**
 * Who may call a route, declared once in its definition (`...access({apiKey: "full", session:
 * "reviewer"})` in `createRoute`): the document's `security`, the authenticating middleware that
 * enforces it, and the least member role a session needs as `x-required-role`.
 */
export function access<const O extends AuthOptions>(options: O) {
  const security: Array<Record<string, string[]>> = [];
  if (options.apiKey) security.push({ apiKey: [] });
  if (options.session) security.push({ session: [] });
  if (options.bot) security.push({ botHmac: [] });
  return {
    security,
    middleware: [authenticate(options)] as [ReturnType<typeof authenticate>],
    ...(options.session ? { "x-required-role": options.session } : {}),
  };
}
