/** Where the operator console lives (served by routes/console.ts; the client is client/console). */
export const CONSOLE_HOME = "/console";
export const CONSOLE_SIGN_IN = "/console/sign-in";

/** Why a sign-in came back without a session; the sign-in page words each one itself. */
export type SignInError = "expired" | "cancelled" | "failed" | "unavailable";

export function signInPageUrl(error?: SignInError, returnTo?: string): string {
  const params = new URLSearchParams();
  if (error) params.set("error", error);
  if (returnTo && returnTo !== CONSOLE_HOME) params.set("return_to", returnTo);
  const query = params.toString();
  return query ? `${CONSOLE_SIGN_IN}?${query}` : CONSOLE_SIGN_IN;
}
