/*
 * The browser attestation widget (Cloudflare Turnstile), loaded only when the verification has a
 * site key. Its tokens are single use, so one is taken per capture, bound to that capture's burst
 * nonce (Turnstile's `cData`, which siteverify returns to the service): the widget is rendered anew
 * for each nonce. Attestation is a signal, not a gate: if the widget cannot load or answer in time,
 * captures go without a token.
 */
const SCRIPT_URL = "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit";
const WAIT_MS = 5_000;

interface Turnstile {
  render(container: HTMLElement, options: Record<string, unknown>): string;
  remove(widgetId: string): void;
}

export interface AttestationSource {
  /** A fresh token whose `cData` is `binding` (the capture's burst nonce, when it has one). */
  token(binding?: string): Promise<string | undefined>;
}

export const noAttestation: AttestationSource = { token: async () => undefined };

export function loadAttestation(siteKey: string, container: HTMLElement): AttestationSource {
  let widgetId: string | undefined;
  let current: string | undefined;
  /** The widget could not load, or its last challenge errored: captures go without waiting. */
  let failed = false;
  let waiter: (() => void) | null = null;
  const notify = () => waiter?.();
  const wait = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, WAIT_MS);
      waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (waiter = null));

  const script = document.createElement("script");
  const loaded = new Promise<Turnstile | null>((resolve) => {
    script.onload = () => resolve((window as unknown as { turnstile?: Turnstile }).turnstile ?? null);
    script.onerror = () => resolve(null);
  });
  script.src = SCRIPT_URL;
  script.async = true;
  document.head.appendChild(script);

  return {
    async token(binding) {
      const turnstile = await Promise.race([loaded, new Promise<null>((resolve) => setTimeout(resolve, WAIT_MS, null))]);
      if (!turnstile) return undefined;
      // One widget per token: rendered anew with this capture's binding, removed once it answered.
      if (widgetId !== undefined) turnstile.remove(widgetId);
      current = undefined;
      failed = false;
      widgetId = turnstile.render(container, {
        sitekey: siteKey,
        action: "capture",
        appearance: "interaction-only",
        ...(binding ? { cData: binding } : {}),
        callback: (token: string) => {
          current = token;
          notify();
        },
        "expired-callback": () => {
          current = undefined;
        },
        "error-callback": () => {
          failed = true;
          notify();
        },
      });
      if (current === undefined && !failed) await wait();
      return failed ? undefined : current;
    },
  };
}
