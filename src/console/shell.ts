/** The operator console's assets (built by scripts/build-page.mjs from client/console into dist/public). */
export const CONSOLE_ASSETS = { script: "/assets/console.js", stylesheet: "/assets/console.css" } as const;

/**
 * Headers of every console page. The page is the dashboard session's own origin: scripts, styles
 * and requests from 'self' only. Images too (evidence is served by this Worker's signed
 * `/v1/evidence/…` URLs in every upload mode, never from an R2 host: allowing every
 * `*.r2.cloudflarestorage.com` bucket would let an injected image reach anyone's bucket), plus the
 * QR code's data: URL and blob: previews. Paths carry capture ids (credentials), so no Referer ever
 * leaves, and nothing may frame the page.
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Content-Security-Policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
};

/**
 * The single-page shell: the bundle renders every screen into #app and reads everything it shows
 * from the public API. Without JavaScript the page says so.
 */
export const CONSOLE_SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>Verification console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_ASSETS.stylesheet}">
<script src="${CONSOLE_ASSETS.script}" defer></script>
</head>
<body>
<div id="app"><p class="boot" role="status">Loading the console…</p></div>
<noscript><p class="boot">The console needs JavaScript. The same operations are available through the API: see <a href="/docs">/docs</a>.</p></noscript>
</body>
</html>
`;
