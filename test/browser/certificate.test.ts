import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { calculateJwkThumbprint, exportJWK, SignJWT, type JWK } from "jose";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { ContractViolation } from "../helpers/openapi-contract";
import { checkedFetch, keyedApi as api, servedContract, tenantClient, workerLogTail } from "./helpers/api";
import { axeClean, BASE_FLAGS, checkPageResponse, CHROMIUM, jpegFromPage, settleChecks } from "./helpers/browser";

/*
 * The certificate page and the verification-certificate command (issue 27), against the real Worker:
 * a verification completes, its certificate is shared through a link; Chromium opens the link,
 * verifies the signature with WebCrypto against the published keys and checks dropped photos;
 * the command checks the same certificate online and offline, in Node. Screenshots in
 * test-results/certificate/, axe clean (no serious or critical finding).
 */

const SHOTS = path.resolve(import.meta.dirname, "../../test-results/certificate");
const root = path.resolve(import.meta.dirname, "../..");
const base = () => inject("baseUrl");
const tenant = tenantClient();

let browser: Browser;
let page: Page;
let photo: Buffer;
let verificationId: string;
let linkUrl: string;
let linkId: string;
const violations: string[] = [];
const checks: Array<Promise<void>> = [];
const pageErrors: string[] = [];

async function shoot(name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const [label, size] of [["1280x900", { width: 1280, height: 900 }], ["390x844", { width: 390, height: 844 }]] as const) {
    await page.setViewportSize(size);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.screenshot({ path: path.join(SHOTS, `${name}-${label}.png`), fullPage: true });
    await axeClean(page, `${name} @${label}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** How many lines each element matching `selector` takes, as "<its text>: <n> line(s)". */
function linesOf(on: Page, selector: string): Promise<string[]> {
  return on.locator(selector).evaluateAll((elements) =>
    elements.map((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      return `${element.textContent}: ${new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size} line(s)`;
    }),
  );
}

/** Drops files onto the page's drop zone as a person dragging them from their desktop would. */
async function dropFiles(files: Array<{ name: string; bytes: Buffer }>): Promise<void> {
  const transfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: "image/jpeg" }));
    return dt;
  }, files.map((f) => ({ name: f.name, base64: f.bytes.toString("base64") })));
  await page.dispatchEvent("#dropzone", "dragover", { dataTransfer: transfer });
  await page.dispatchEvent("#dropzone", "drop", { dataTransfer: transfer });
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: BASE_FLAGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-GB" });
  page = await context.newPage();
  const contract = await servedContract();
  page.on("response", (response) => checks.push(checkPageResponse(contract, response, violations)));
  page.on("pageerror", (err) => pageErrors.push(String(err)));
  photo = await jpegFromPage(page, "#2e7d32");

  const v = await tenant.createVerification({ max_captures: 1, signals_required: ["screen"], metadata: { claim_id: "CLM-CERT-1" } });
  verificationId = v.id;
  const captured = await checkedFetch(
    new Request(`${base()}/v1/verifications/${v.id}/captures`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ image_base64: photo.toString("base64") }) }),
  );
  expect(captured.status, await captured.clone().text()).toBe(201);
  await captured.text();
  const done = await tenant.waitForVerification(v.id, { until: (x) => x.verdict !== undefined, intervalMs: 500, timeoutMs: 60_000 });
  expect(done.status).toBe("completed");
  const link = await api(`/v1/verifications/${v.id}/certificate-link`, { method: "POST" });
  expect(link.status).toBe(201);
  linkUrl = link.body.url;
  linkId = link.body.id;
});

afterAll(async () => {
  await settleChecks(checks);
  await browser?.close();
  if (violations.length > 0) throw new ContractViolation(violations.join("\n\n"));
  if (pageErrors.length > 0) throw new Error(`the page threw:\n${pageErrors.join("\n")}`);
});

describe("the certificate page", () => {
  it("verifies the signature in the browser and checks dropped photos locally", async () => {
    const uploads: string[] = [];
    page.on("request", (r) => {
      if (r.method() !== "GET") uploads.push(`${r.method()} ${r.url()}`);
    });
    try {
      await page.goto(linkUrl);
      await page.getByText("Signature valid.").waitFor();
    } catch (err) {
      console.error(`${await page.evaluate(() => document.body.innerText).catch(() => "")}\n${workerLogTail()}`);
      throw err;
    }
    // Who: the name the tenant typed, said to be only that (it proved no domain); how: each required signal.
    await page.getByRole("heading", { level: 1, name: /^Verified: verification requested by “Dev Tenant[^”]*”, as declared by the tenant$/ }).waitFor();
    await page.getByText(/as declared by the tenant: the issuer has not verified who they are/).waitFor();
    // The declared name is isolated wherever the page prints it: an override in it reversed this disclaimer (settings probe of 2026-12-04).
    expect(await page.locator("h1 bdi, strong bdi").allTextContents()).toEqual([expect.stringMatching(/^Dev Tenant/), expect.stringMatching(/^Dev Tenant/)]);
    await page.getByText("Photo of a screen: checked, from the image's pixels").waitFor();
    await page.getByRole("cell", { name: "Submitted through the capture link" }).waitFor();
    expect(await page.getByText(/Live photo|taken with/i).count()).toBe(0);
    await page.getByText(verificationId).waitFor();
    await shoot("01-certificate");

    // The photo that was verified matches, byte for byte; a copy with one byte changed does not.
    const changed = Buffer.from(photo);
    changed[changed.length - 3] = changed[changed.length - 3]! ^ 0x01;
    await dropFiles([{ name: "claim-photo.jpg", bytes: photo }]);
    await page.getByText("claim-photo.jpg: matches.").waitFor();
    await page.getByText("Matches claim-photo.jpg").waitFor();
    await page.locator("#photos").setInputFiles({ name: "edited-copy.jpg", mimeType: "image/jpeg", buffer: changed });
    await page.getByText("edited-copy.jpg: not in this certificate.").waitFor();
    await shoot("02-photos-checked");
    // A word that fits its line is never broken (the wrapping that keeps long words on a phone's screen must not cut short ones).
    expect(await linesOf(page, "table.captures tbody span.mono")).toEqual(["capture_1: 1 line(s)"]);
    expect(await linesOf(page, "table.captures thead th")).toEqual(["Photo", "Kind", "Received", "SHA-256", "Checked"].map((h) => `${h}: 1 line(s)`));
    // Nothing was sent anywhere: no request but reads (the page, its assets, the key set).
    expect(uploads).toEqual([]);
  });

  it("a certificate whose payload was altered in transit is shown as not valid", async () => {
    const tamperedContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-GB" });
    const tampered = await tamperedContext.newPage();
    await tampered.route(linkUrl, async (route) => {
      const res = await route.fetch();
      const html = await res.text();
      const altered = html.replace(/("certificate":"[^.]+\.)([^.]{20})/, (_all, head: string, body: string) => `${head}${body[0] === "A" ? "B" : "A"}${body.slice(1)}`);
      expect(altered).not.toBe(html);
      await route.fulfill({ response: res, body: altered });
    });
    const previous = page;
    page = tampered;
    try {
      await page.goto(linkUrl);
      await page.getByRole("heading", { level: 1, name: "This certificate is not valid" }).waitFor();
      await page.getByRole("alert").getByText(/Do not rely on what it says/).waitFor();
      expect(await page.getByText("Drop the photos you were sent here").count()).toBe(0);
      await shoot("03-altered");
    } finally {
      page = previous;
      await tamperedContext.close();
    }
  });

  it("a revoked link is a 404 page", async () => {
    const revoked = await api(`/v1/certificate-links/${linkId}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    const res = await page.goto(linkUrl);
    expect(res?.status()).toBe(404);
    await page.getByRole("heading", { level: 1, name: "Certificate not found" }).waitFor();
    await shoot("04-revoked");
  });
});

describe("the certificate page on a narrow phone", () => {
  it("never scrolls sideways at 320 and 390 px (nor on a tablet or a desktop) when a declared name or a step key is one long word (probe of 2026-12-07)", async () => {
    // The longest a tenant may type: an 80-character name without a space, a 64-character step key without one.
    const longName = "Aktiengesellschaftsversicherungsverwaltungsbetriebsgesellschaftsmbhundcokghamburg".slice(0, 80);
    const longKey = "rooftop_solar_panel_inverter_serial_number_plate_close_up_view_1".slice(0, 64);
    expect([longName.length, longKey.length]).toEqual([80, 64]);
    const digest = createHash("sha256").update(photo).digest("hex");
    // A certificate signed with a key of our own, served as the Worker serves one (its page, its headers, a key set
    // holding that key): what the page shows depends only on what the certificate says.
    const received = new Date().toISOString();
    const { signed, jwk, payload } = await selfSignedCertificate(longName, [
      { id: "cap_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", step_key: longKey, kind: "live", received_at: received, sha256: digest },
      { id: "cap_01JD2Y4N9M6Q8R0S2T4V6W8X1A", step_key: "capture_2", kind: "upload", received_at: received, sha256: "b".repeat(64) },
    ]);
    const jwksUrl = `${base()}/.well-known/jwks.json`;
    const body = { certificate: signed, jwks_url: jwksUrl, kid: jwk.kid, sequence: 1, issued_at: new Date(payload.iat * 1000).toISOString(), expires_at: new Date(payload.exp * 1000).toISOString(), payload };
    const link = await api(`/v1/verifications/${verificationId}/certificate-link`, { method: "POST" });
    expect(link.status).toBe(201);
    const pageUrl: string = link.body.url;

    const narrowContext = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "en-GB" });
    const narrow = await narrowContext.newPage();
    const errors: string[] = [];
    narrow.on("pageerror", (err) => errors.push(String(err)));
    // The Worker's own page and headers, carrying this certificate in place of the one it serves.
    await narrow.route(pageUrl, async (route) => {
      const res = await route.fetch();
      const html = await res.text();
      const swapped = html.replace(/(<script type="application\/json" id="certificate-data">)[^<]*(<\/script>)/, (_all, open: string, close: string) => `${open}${JSON.stringify(body).replace(/</g, "\\u003c")}${close}`);
      expect(swapped).not.toBe(html);
      await route.fulfill({ response: res, body: swapped });
    });
    await narrow.route(jwksUrl, (route) => route.fulfill({ status: 200, contentType: "application/jwk-set+json", body: JSON.stringify({ keys: [jwk] }) }));
    try {
      await narrow.goto(pageUrl);
      await narrow.getByText("Signature valid.").waitFor();
      await narrow.getByRole("heading", { level: 1, name: new RegExp(`requested by “${longName}”`) }).waitFor();
      // Checked photos print the step key too.
      await narrow.locator("#photos").setInputFiles({ name: `${longKey}.jpg`, mimeType: "image/jpeg", buffer: photo });
      await narrow.getByText(`${longKey}.jpg: matches.`).waitFor();
      mkdirSync(SHOTS, { recursive: true });
      for (const width of [320, 390, 768, 1280]) {
        await narrow.setViewportSize({ width, height: 844 });
        await narrow.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const measured = await narrow.evaluate(() => {
          // Whatever sticks out to the right of the viewport, named, for the failure message.
          const wide = [...document.querySelectorAll("main *")]
            .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
            .map((el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? `.${el.className.split(" ").join(".")}` : ""}`);
          return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, wide: [...new Set(wide)].slice(0, 8) };
        });
        expect(measured.scrollWidth, `@${width}px: ${measured.wide.join(", ")}`).toBeLessThanOrEqual(measured.innerWidth);
        expect(measured.wide, `@${width}px`).toEqual([]);
        // Only what does not fit breaks: a short step key stays whole beside the long one, and on a desktop so do
        // the table's column headings.
        expect((await linesOf(narrow, "table.captures tbody span.mono"))[1], `@${width}px`).toBe("capture_2: 1 line(s)");
        if (width === 1280) expect(await linesOf(narrow, "table.captures thead th")).toEqual(["Photo", "Kind", "Received", "SHA-256", "Checked"].map((h) => `${h}: 1 line(s)`));
        await narrow.screenshot({ path: path.join(SHOTS, `05-long-words-${width}x844.png`), fullPage: true });
        await axeClean(narrow, `long words @${width}px`);
      }
    } finally {
      await narrowContext.close();
    }
    expect(errors).toEqual([]);
  });
});

describe("the verification-certificate command", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "certificate-cli-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `npx verification-certificate …` from the repository, as a person would run it. */
  function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile("npx", ["--no-install", "verification-certificate", ...args], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
      });
    });
  }

  it("checks signature, issuer and photos, online and offline, with a clear exit code for each outcome", async () => {
    const link = await api(`/v1/verifications/${verificationId}/certificate-link`, { method: "POST" });
    const json = await checkedFetch(new Request(link.body.url, { headers: { Accept: "application/json" } }));
    const certificate = (await json.json()) as { certificate: string };
    const jwks = await (await checkedFetch(new Request(`${base()}/.well-known/jwks.json`))).text();
    const file = (name: string, content: string | Buffer) => {
      const p = path.join(dir, name);
      writeFileSync(p, content);
      return p;
    };
    const certJson = file("certificate.json", JSON.stringify(certificate));
    const certJws = file("certificate.jws", `${certificate.certificate}\n`);
    const keys = file("keys.json", jwks);
    const good = file("photo.jpg", photo);
    const changedBytes = Buffer.from(photo);
    changedBytes[10] = changedBytes[10]! ^ 0x01;
    const changed = file("changed.jpg", changedBytes);
    const [h, p, s] = certificate.certificate.split(".") as [string, string, string];
    const tampered = file("tampered.jws", `${h}.${p.slice(0, 30)}${p[30] === "A" ? "B" : "A"}${p.slice(31)}.${s}`);

    const online = await run(["verify", certJson, good, "--issuer", base()]);
    expect(online, online.stderr).toMatchObject({ code: 0 });
    expect(online.stdout).toContain(`VALID: certificate #1 of ${verificationId}, issued by ${base()}`);
    expect(online.stdout).toMatch(/Requested by: +"Dev Tenant[^"]*" \(the name as declared by the tenant; not checked by the issuer\)/);
    expect(online.stdout).toMatch(/screen_detection: assessed \(pixels\)/);
    expect(online.stdout).toContain("step capture_1, submitted through the capture link");
    expect(online.stdout).toMatch(/MATCH +photo\.jpg: capture cap_/);

    const offline = await run(["verify", certJws, good, "--jwks", keys, "--issuer", base()]);
    expect(offline, offline.stderr).toMatchObject({ code: 0 });

    const byUrl = await run(["verify", certJws, "--jwks-url", `${base()}/.well-known/jwks.json`, "--json"]);
    expect(byUrl.code, byUrl.stderr).toBe(0);
    expect(JSON.parse(byUrl.stdout)).toMatchObject({ valid: true, payload: { verification: { id: verificationId } }, photos: [] });

    const photoMissing = await run(["verify", certJws, good, changed, "--jwks", keys, "--issuer", base()]);
    expect(photoMissing.code).toBe(3);
    expect(photoMissing.stdout).toMatch(/NOT IN IT +changed\.jpg/);

    const altered = await run(["verify", tampered, good, "--jwks", keys, "--issuer", base()]);
    expect(altered.code).toBe(1);
    expect(altered.stderr).toContain("NOT VALID: The signature does not match");

    const otherIssuer = await run(["verify", certJws, "--jwks", keys, "--issuer", "https://verify.example.com"]);
    expect(otherIssuer.code).toBe(1);
    expect(otherIssuer.stderr).toContain(`It names ${base()} as its issuer`);

    const noKeys = await run(["verify", certJws, "--issuer", "http://127.0.0.1:9"]);
    expect(noKeys.code, noKeys.stderr).toBe(4);
    expect(noKeys.stderr).toContain("NOT CHECKED");

    const usage = await run(["verify", certJws]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Name the issuer you trust");
    const missing = await run(["verify", path.join(dir, "nope.jws"), "--issuer", base()]);
    expect(missing.code).toBe(2);
  }, 180_000);

  it("prints what a tenant typed as text: terminal escapes and other control characters in a certificate are shown, never sent to the terminal", async () => {
    // A step key carrying an OSC 8 hyperlink, a clear-screen, a bell, an 8-bit CSI and a bidi override.
    const hostile = "roof\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007\u001b[2J\u009b31m\u202eevil";
    // This service refuses such a key at input now (400): the command meets one only in a certificate
    // signed before that, or by another issuer. Such a certificate, signed here with a key of our own.
    const refused = await api("/v1/verifications", { method: "POST", body: JSON.stringify({ steps: [{ key: hostile, type: "image", description: "The roof", min: 1, max: 1 }] }) });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.error.fields)).toContain("steps.0.key");
    const { signed, jwk } = await selfSignedCertificate("Acme", [
      { id: "cap_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", step_key: hostile, kind: "live", received_at: new Date().toISOString(), sha256: "a".repeat(64) },
    ]);
    const certificate = path.join(dir, "hostile.json");
    writeFileSync(certificate, JSON.stringify({ certificate: signed }));
    const keys = path.join(dir, "hostile-keys.json");
    writeFileSync(keys, JSON.stringify({ keys: [jwk] }));
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

    const text = await run(["verify", certificate, "--jwks", keys, "--issuer", base()]);
    expect(text, text.stderr).toMatchObject({ code: 0 });
    expect(text.stdout).not.toMatch(controls);
    expect(text.stdout).toContain("step roof\\x1B]8;;https://evil.example\\x07click\\x1B]8;;\\x07\\x1B[2J\\x9B31m\\u202Eevil,");

    const asJson = await run(["verify", certificate, "--jwks", keys, "--issuer", base(), "--json"]);
    expect(asJson.code, asJson.stderr).toBe(0);
    expect(asJson.stdout).not.toMatch(controls);
    expect(JSON.parse(asJson.stdout).payload.verification.captures[0].step_key).toBe(hostile);
  }, 180_000);
});

/**
 * A certificate of a completed verification signed with a key of our own (not the Worker's): what a
 * page or the command shows then depends only on what the certificate says.
 */
async function selfSignedCertificate(displayName: string, captures: Array<Record<string, unknown>>) {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), alg: "EdDSA", use: "sig" };
  jwk.kid = await calculateJwkThumbprint(jwk);
  const iat = Math.floor(Date.now() / 1000);
  const payload = {
    iss: base(),
    iat,
    exp: iat + 7 * 24 * 3600,
    sequence: 1,
    schema_version: 2,
    verification: {
      id: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
      tenant: { id: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", display_name: displayName },
      status: "completed",
      created_at: new Date((iat - 60) * 1000).toISOString(),
      completed_at: new Date(iat * 1000).toISOString(),
      verdict: { label: "verified", assessment: "complete", signals: { screen: { status: "assessed", method: "pixels" } } },
      captures,
    },
  };
  const signed = await new SignJWT(payload).setProtectedHeader({ alg: "EdDSA", kid: jwk.kid, typ: "verification-certificate+jwt" }).sign(pair.privateKey);
  return { signed, jwk, payload };
}
