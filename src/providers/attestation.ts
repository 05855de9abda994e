/** Result stored on a capture as `attestation` (contract: verdict pass | fail | error). */
export interface Attestation {
  verdict: "pass" | "fail" | "error";
  checked_at: string;
  provider: string;
  hostname?: string;
  action?: string;
  /** The `cData` the widget was rendered with (the capture page binds it to the capture's burst nonce). */
  cdata?: string;
  error_codes?: string[];
}

/** Verifies a browser challenge-attestation token server-side. */
export interface AttestationVerifier {
  verify(token: string, remoteIp: string | undefined, now: number): Promise<Attestation>;
}

export const DEFAULT_SITEVERIFY_URL = "https://challenges.cloudflare.com/turnstile/v0/siteverify";
const TIMEOUT_MS = 5_000;

/** A siteverify-style endpoint (Cloudflare Turnstile's contract; hCaptcha and reCAPTCHA speak the same). */
export function siteverifyVerifier(options: { secret: string; url: string; fetcher?: typeof fetch }): AttestationVerifier {
  const doFetch = options.fetcher ?? fetch;
  return {
    async verify(token, remoteIp, now) {
      const checked_at = new Date(now).toISOString();
      const form = new URLSearchParams({ secret: options.secret, response: token });
      if (remoteIp) form.set("remoteip", remoteIp);
      try {
        const res = await doFetch(options.url, { method: "POST", body: form, signal: AbortSignal.timeout(TIMEOUT_MS) });
        if (!res.ok) return { verdict: "error", checked_at, provider: "siteverify", error_codes: [`http_${res.status}`] };
        const body = (await res.json()) as { success?: unknown; hostname?: unknown; action?: unknown; cdata?: unknown; "error-codes"?: unknown };
        if (typeof body.success !== "boolean") return { verdict: "error", checked_at, provider: "siteverify", error_codes: ["malformed_response"] };
        const codes = Array.isArray(body["error-codes"]) ? body["error-codes"].filter((c): c is string => typeof c === "string") : [];
        return {
          verdict: body.success ? "pass" : "fail",
          checked_at,
          provider: "siteverify",
          ...(typeof body.hostname === "string" ? { hostname: body.hostname } : {}),
          ...(typeof body.action === "string" ? { action: body.action } : {}),
          ...(typeof body.cdata === "string" && body.cdata ? { cdata: body.cdata.slice(0, 255) } : {}),
          ...(codes.length > 0 ? { error_codes: codes } : {}),
        };
      } catch (err) {
        const code = err instanceof Error && err.name === "TimeoutError" ? "timeout" : "network_error";
        return { verdict: "error", checked_at, provider: "siteverify", error_codes: [code] };
      }
    },
  };
}

/** When no verifier is configured the token cannot be checked: recorded as an error, never as a pass. */
export const unconfiguredVerifier: AttestationVerifier = {
  async verify(_token, _ip, now) {
    return { verdict: "error", checked_at: new Date(now).toISOString(), provider: "none", error_codes: ["verifier_not_configured"] };
  },
};

export function attestationVerifier(env: Env): AttestationVerifier {
  if (!env.ATTESTATION_SECRET) return unconfiguredVerifier;
  return siteverifyVerifier({ secret: env.ATTESTATION_SECRET, url: env.ATTESTATION_VERIFY_URL || DEFAULT_SITEVERIFY_URL });
}
