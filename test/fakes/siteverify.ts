import type { FakeHandler } from "./server";

/**
 * Turnstile-style siteverify. The token decides the answer: `pass…` succeeds, `fail…` is rejected,
 * `error…` is a 500, `garbage…` a non-JSON body, `slow…` answers after the Worker's timeout. What
 * follows a `~` in a passing token is the widget's `cData`, returned as `cdata` (as Turnstile does).
 */
export const siteverify: FakeHandler = (req) => {
  const form = new URLSearchParams(req.body.toString("utf8"));
  const token = form.get("response") ?? "";
  if (form.get("secret") !== "test-attestation-secret") {
    return { status: 200, body: JSON.stringify({ success: false, "error-codes": ["invalid-input-secret"] }) };
  }
  if (token.startsWith("pass")) {
    const cdata = token.includes("~") ? token.slice(token.indexOf("~") + 1) : "";
    return { status: 200, body: JSON.stringify({ success: true, hostname: "localhost", challenge_ts: new Date().toISOString(), action: "capture", ...(cdata ? { cdata } : {}) }) };
  }
  if (token.startsWith("fail")) return { status: 200, body: JSON.stringify({ success: false, "error-codes": ["invalid-input-response"] }) };
  if (token.startsWith("error")) return { status: 500, body: "upstream exploded" };
  if (token.startsWith("garbage")) return { status: 200, headers: { "content-type": "text/html" }, body: "<html>" };
  if (token.startsWith("slow")) return { status: 200, delayMs: 7_000, body: JSON.stringify({ success: true }) };
  return { status: 200, body: JSON.stringify({ success: false, "error-codes": ["invalid-input-response"] }) };
};
