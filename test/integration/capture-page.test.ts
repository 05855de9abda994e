import { describe, expect, it } from "vitest";
import { call, createVerification, seedTenant } from "../helpers/api";

describe("GET /c/{verification_id}", () => {
  it("serves the page shell with the reader's language, the bundle and strict headers", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key);
    const res = await call(`/c/${v.id}`, { headers: { "Accept-Language": "es-ES,es;q=0.9,en;q=0.5" } });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-language")).toBe("es");
    expect(res.headers.get("vary")).toMatch(/Accept-Language/);
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(html).toContain('<html lang="es">');
    expect(html).toContain("<title>Verificación con fotos</title>");
    expect(html).toContain('<script src="/assets/capture-page.js" defer></script>');
    expect(html).toContain('<link rel="stylesheet" href="/assets/capture-page.css">');
    const config = JSON.parse(/<script type="application\/json" id="page-config">(.*?)<\/script>/s.exec(html)![1]!);
    expect(config.verification_id).toBe(v.id);
    expect(config.locale).toBe("es");
    expect(config.strings.start).toBe("Empezar");
  });

  it("speaks English when no supported language is asked for", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key);
    const res = await call(`/c/${v.id}`, { headers: { "Accept-Language": "ja-JP" } });
    const html = await res.text();
    expect(res.headers.get("content-language")).toBe("en");
    expect(html).toContain("<title>Photo verification</title>");
  });

  it("answers a link that cannot be a verification with a 404 page that needs no script", async () => {
    const res = await call("/c/not-a-verification%3Cscript%3E", { headers: { "Accept-Language": "en" } });
    const html = await res.text();
    expect(res.status).toBe(404);
    expect(html).toContain("<h1>Link not found</h1>");
    expect(html).not.toContain("<script");
  });
});
