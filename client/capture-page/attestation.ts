/*
 * The browser attestation widget (Cloudflare Turnstile), loaded only when the verification has a
 * site key. Its tokens are single use, so one is taken per capture and the widget is reset for the
 * next. Attestation is a signal, not a gate: if the widget cannot load or answer in time, captures
 * go without a token.
 */
const SCRIPT_URL = "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit";
const WAIT_MS = 5_000;

interface Turnstile {
  render(container: HTMLElement, options: Record<string, unknown>): string;
  reset(widgetId: string): void;
}

export interface AttestationSource {
  token(): Promise<string | undefined>;
}

export const noAttestation: AttestationSource = { token: async () => undefined };

export function loadAttestation(siteKey: string, container: HTMLElement): AttestationSource {
  let current: string | undefined;
  let widgetId: string | undefined;
  /** The widget could not load, or its last challenge errored: captures go without waiting. */
  let failed = false;
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());

  const script = document.createElement("script");
  script.src = SCRIPT_URL;
  script.async = true;
  script.onerror = () => {
    failed = true;
    notify();
  };
  script.onload = () => {
    const turnstile = (window as unknown as { turnstile?: Turnstile }).turnstile;
    if (!turnstile) {
      failed = true;
      notify();
      return;
    }
    widgetId = turnstile.render(container, {
      sitekey: siteKey,
      action: "capture",
      appearance: "interaction-only",
      callback: (token: string) => {
        current = token;
        failed = false;
        notify();
      },
      "expired-callback": () => {
        current = undefined;
      },
      "error-callback": () => {
        current = undefined;
        failed = true;
        notify();
      },
    });
  };
  document.head.appendChild(script);

  return {
    async token() {
      if (!current && !failed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, WAIT_MS);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      const token = current;
      current = undefined;
      if (token && widgetId !== undefined) (window as unknown as { turnstile: Turnstile }).turnstile.reset(widgetId);
      return token;
    },
  };
}
