import { escapeHtml, scriptJson } from "../lib/html";

/** The certificate page's bundle (client/certificate-page, built by scripts/build-page.mjs). */
export const CERTIFICATE_PAGE_ASSETS = { script: "/assets/certificate-page.js", stylesheet: "/assets/certificate-page.css" } as const;

/**
 * Headers of the certificate page. Its URL carries the link's token (a credential): no Referer
 * leaves it and nothing may frame it. Scripts, styles and requests from this origin only (the JWKS
 * is same-origin); dropped photos are read locally and never sent anywhere (no form, no upload).
 */
export const CERTIFICATE_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob: data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
  "Vary": "Accept",
  "X-Frame-Options": "DENY",
};

/**
 * The page: the certificate as the JSON answer gives it travels in the page
 * (`<script type="application/json" id="certificate-data">`, so one request shows it), and the
 * bundle renders it, verifies the signature against the JWKS and checks dropped photos.
 */
export function certificatePageHtml(certificate: unknown, jsonUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>Verification certificate</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CERTIFICATE_PAGE_ASSETS.stylesheet}">
<script src="${CERTIFICATE_PAGE_ASSETS.script}" defer></script>
</head>
<body>
<main id="app" class="page" tabindex="-1">
<p class="status" role="status">Loading the certificate…</p>
<noscript><p>Checking the signature and the photos needs JavaScript. The certificate itself is at <a href="${escapeHtml(jsonUrl)}">this address as JSON</a> (ask for <code>application/json</code>); verify it with the <code>verification-certificate</code> command.</p></noscript>
</main>
<script type="application/json" id="certificate-data">${scriptJson(certificate)}</script>
</body>
</html>
`;
}
