/*
 * Client-side routing over the History API: the path names the screen, the query holds a screen's
 * state worth sharing (list filters). Same-origin links under /console are intercepted globally, so
 * screens use plain <a href> (keyboard, middle-click and "open in new tab" keep working).
 */
import { useEffect, useState } from "preact/hooks";

export const HOME = "/console";
const SIGN_IN = "/console/sign-in";
const CHANGE = "console:navigate";

let leaving = false;

/**
 * Leaves for the sign-in page, once: a second navigation (a read's 401 racing a sign-out's own)
 * would abort the first.
 */
export function leaveForSignIn(url = SIGN_IN): void {
  if (leaving) return;
  leaving = true;
  window.location.assign(url);
}

/** The sign-in page after the top bar's Sign out, which ends the user's sessions on every device: the page says so. */
const SIGNED_OUT = `${SIGN_IN}?signed_out=everywhere`;

/**
 * Signs out, then leaves for the sign-in page that says so. The session ends at the service before
 * its answer gets here, and a read refused in between (a screen refreshing on focus) took the
 * operator to the bare sign-in page first, without the notice (a CI run of 2026-12-07): no other
 * way out is taken while `logout` is on its way. A sign-out that never reached the service stays.
 */
export async function leaveAfterSignOut(logout: Promise<unknown>): Promise<void> {
  leaving = true;
  try {
    await logout;
  } catch (err) {
    leaving = false;
    throw err;
  }
  window.location.assign(SIGNED_OUT);
}

export function signInUrl(returnTo: string, error?: string): string {
  const params = new URLSearchParams();
  if (error) params.set("error", error);
  if (returnTo && returnTo !== HOME && !returnTo.startsWith(SIGN_IN)) params.set("return_to", returnTo);
  const query = params.toString();
  return query ? `${SIGN_IN}?${query}` : SIGN_IN;
}

let navigated = false;
/** Whether the app has navigated since the page loaded (a first load leaves focus where the browser puts it). */
export const hasNavigated = (): boolean => navigated;

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (`${location.pathname}${location.search}` === to) return;
  if (!options.replace) navigated = true;
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  window.dispatchEvent(new Event(CHANGE));
}

export interface Location {
  path: string;
  query: URLSearchParams;
}

const current = (): Location => ({ path: location.pathname.replace(/\/+$/, "") || "/", query: new URLSearchParams(location.search) });

export function useLocation(): Location {
  const [value, setValue] = useState(current);
  useEffect(() => {
    const update = () => setValue(current());
    const popped = () => {
      navigated = true;
      update();
    };
    window.addEventListener("popstate", popped);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener("popstate", popped);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return value;
}

/** `/console/verifications/:id` against a path: the named segments, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(":")) params[w.slice(1)] = decodeURIComponent(g);
    else if (w !== g) return null;
  }
  return params;
}

/** Same-tab, unmodified clicks on console links become client-side navigations. */
export function interceptLinks(): void {
  document.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest?.("a[href]") as HTMLAnchorElement | null;
    if (!anchor || anchor.target || anchor.hasAttribute("download")) return;
    const url = new URL(anchor.href);
    if (url.origin !== location.origin || !url.pathname.startsWith(HOME) || url.pathname.startsWith(SIGN_IN)) return;
    // An in-page anchor (the skip link) is the browser's to follow.
    if (url.hash && url.pathname === location.pathname && url.search === location.search) return;
    event.preventDefault();
    navigate(`${url.pathname}${url.search}`);
  });
}
