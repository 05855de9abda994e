import type { Strings } from "./strings/en";
import { escapeHtml, scriptJson } from "../lib/html";

/** Where the client bundle is served from (Workers static assets, built by scripts/build-page.mjs). */
export const PAGE_ASSETS = { script: "/assets/capture-page.js", stylesheet: "/assets/capture-page.css" } as const;

/** The attestation widget's script (Cloudflare Turnstile; loaded only when a site key is configured). */
export const ATTESTATION_ORIGIN = "https://challenges.cloudflare.com";

/** What the client bundle reads from the page (`<script type="application/json" id="page-config">`). */
export interface PageConfig {
  verification_id: string;
  locale: string;
  strings: Strings;
}

/**
 * The capture page's security headers. The verification id in the URL is the end user's credential:
 * no Referer leaves the page, nothing may frame it, and scripts come only from this origin and the
 * attestation widget. Uploads may go to this origin or, in direct mode, straight to R2.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": [
    "default-src 'none'",
    `script-src 'self' ${ATTESTATION_ORIGIN}`,
    `frame-src ${ATTESTATION_ORIGIN}`,
    "style-src 'self'",
    "img-src 'self' blob: data:",
    "media-src 'self' blob:",
    "connect-src 'self' https://*.r2.cloudflarestorage.com",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "Referrer-Policy": "no-referrer",
  "Permissions-Policy": "camera=(self), geolocation=(self), microphone=()",
  "Cache-Control": "no-store",
  "Vary": "Accept-Language",
};

function document(locale: string, strings: Strings, body: string): string {
  return `<!doctype html>
<html lang="${escapeHtml(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${escapeHtml(strings.page_title)}</title>
<link rel="stylesheet" href="${PAGE_ASSETS.stylesheet}">
<link rel="icon" href="data:,">
</head>
<body>
${body}
</body>
</html>
`;
}

/** The shell the client bundle renders into; usable text even before (or without) JavaScript. */
export function capturePageHtml(config: PageConfig): string {
  const { strings } = config;
  return document(
    config.locale,
    strings,
    `<main id="app" class="screen" tabindex="-1">
<p class="status" role="status">${escapeHtml(strings.loading)}</p>
<noscript><p class="notice">${escapeHtml(strings.noscript)}</p></noscript>
</main>
<script type="application/json" id="page-config">${scriptJson(config)}</script>
<script src="${PAGE_ASSETS.script}" defer></script>`,
  );
}

/** A link that cannot be a verification id: answered without JavaScript. */
export function notFoundHtml(locale: string, strings: Strings): string {
  return document(
    locale,
    strings,
    `<main id="app" class="screen"><h1>${escapeHtml(strings.not_found_heading)}</h1><p>${escapeHtml(strings.not_found_body)}</p></main>`,
  );
}
