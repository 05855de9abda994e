/**
 * A minimal, self-contained HTML page for people who follow a link in a browser (no scripts, no
 * external assets); `form` adds one button that POSTs to a path of this service.
 */
export function htmlPage(title: string, message: string, form?: { action: string; button: string; method?: "get" | "post" }, lang = "en"): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style>
  body { font-family: system-ui, sans-serif; margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f6f7f9; color: #1d2430; }
  main { max-width: 28rem; padding: 2rem; text-align: center; }
  h1 { font-size: 1.4rem; margin: 0 0 .75rem; }
  p { line-height: 1.5; margin: 0; color: #4a5565; }
  button { margin-top: 1.5rem; font: inherit; font-weight: 600; padding: .75rem 1.5rem; border: 0; border-radius: .5rem; background: #1d4ed8; color: #fff; cursor: pointer; }
</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>${form ? `\n<form method="${form.method ?? "post"}" action="${escapeHtml(form.action)}"><button type="submit">${escapeHtml(form.button)}</button></form>` : ""}
</main>
</body>
</html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** JSON safe inside a `<script>` element (no `</script>`, no HTML comment openers). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

/** Headers for a page that must not be cached or framed, and whose URL may carry a credential. */
export const HTML_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'",
  "Referrer-Policy": "no-referrer",
} as const;
