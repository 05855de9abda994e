import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { checkedFetch, keyedApi as api, tenantClient, workerLogTail } from "./helpers/api";
import { jpegFromPage } from "./helpers/browser";
import { openConsole, shoot, signInAsDev, type ConsoleBrowser } from "./helpers/console";

/*
 * The evidence report (issue 35), tried as an adjuster gets it: a verification with three photos,
 * answers, a location check, a review and a certificate link; the operator downloads its report from
 * the console with the link printed on it, and a back-end downloads one with its API key. Each PDF is
 * rendered to page images (poppler's pdftoppm) under test-results/report/ to be looked at, and its
 * text (pdftotext) is checked for the verdict, the ids and every SHA-256, and its QR code is read back
 * (zbarimg) as the certificate link. A redacted verification's
 * report is checked for what it must not carry: no image, no answer, no note, no coordinates.
 */

const run = promisify(execFile);
const OUT = path.resolve(import.meta.dirname, "../../test-results/report");
const base = () => inject("baseUrl");
const tenant = tenantClient();
const NOTE = "Dent matches the narrative; rim checked at the garage 7731";
const ANSWER = "POL-48213";
const EXPECTED = { lat: 48.137154, lng: 11.576124 };

let ui: ConsoleBrowser;
let verificationId: string;
let captureIds: string[];
let digests: string[];

/** The PDF's text (pdftotext, layout kept) and its pages as PNGs in test-results/report/<name>-<n>.png. */
async function rendered(name: string, pdf: Buffer): Promise<{ text: string; pages: number; images: number }> {
  mkdirSync(OUT, { recursive: true });
  for (const f of readdirSync(OUT).filter((f) => f.startsWith(`${name}-`))) rmSync(path.join(OUT, f));
  const file = path.join(OUT, `${name}.pdf`);
  writeFileSync(file, pdf);
  await run("pdftoppm", ["-r", "70", "-png", file, path.join(OUT, name)]);
  const { stdout: text } = await run("pdftotext", ["-layout", file, "-"]);
  const { stdout: list } = await run("pdfimages", ["-list", file]);
  const pages = readdirSync(OUT).filter((f) => f.startsWith(`${name}-`) && f.endsWith(".png")).length;
  return { text, pages, images: list.split("\n").slice(2).filter((l) => l.trim() !== "").length };
}

beforeAll(async () => {
  ui = await openConsole();
  const colours = ["#2e7d32", "#1565c0", "#8e24aa"];
  const photos = await Promise.all(colours.map((c) => jpegFromPage(ui.page, c)));
  const v = await tenant.createVerification({
    steps: [
      { key: "front", type: "image", description: "Front of the car, whole plate visible", min: 1, max: 1 },
      { key: "side", type: "image", description: "The damaged side", min: 1, max: 1 },
      { key: "odometer", type: "image", description: "The odometer", min: 1, max: 1 },
      { key: "policy", type: "text", description: "Policy number", required: true, validation: { max_length: 20, format: "alphanumeric_id" } },
    ],
    signals_required: ["screen"],
    expected_location: `${EXPECTED.lat},${EXPECTED.lng}`,
    metadata: { claim_id: "CLM-REPORT-1" },
  });
  verificationId = v.id;
  for (const [i, step] of ["front", "side", "odometer"].entries()) {
    const res = await checkedFetch(
      new Request(`${base()}/v1/verifications/${v.id}/captures`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        // About 140 m north-east of the expected point.
        body: JSON.stringify({ step_key: step, image_base64: photos[i]!.toString("base64"), location: { lat: EXPECTED.lat + 0.001, lng: EXPECTED.lng + 0.0012, accuracy_m: 12 } }),
      }),
    );
    expect(res.status, await res.clone().text()).toBe(201);
    await res.text();
  }
  const answered = await checkedFetch(
    new Request(`${base()}/v1/verifications/${v.id}/answers`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ step_key: "policy", value: ANSWER }) }),
  );
  expect(answered.status).toBe(200);
  await answered.text();
  const done = await tenant.waitForVerification(v.id, { until: (x) => x.verdict !== undefined && x.location_match !== undefined, intervalMs: 500, timeoutMs: 60_000 });
  expect(done.status).toBe("completed");
  const listed = await api(`/v1/verifications/${v.id}/captures`);
  digests = listed.body.items.map((c: { sha256: string }) => c.sha256);
  expect(digests).toHaveLength(3);
  captureIds = listed.body.items.map((c: { id: string }) => c.id);
});

afterAll(async () => {
  await ui?.close();
});

describe("the evidence report", () => {
  it("downloads from the console with the certificate link it just made, and shows all of it", async () => {
    const { page } = ui;
    await signInAsDev(page);
    await page.goto(`${base()}/console/verifications/${verificationId}`);
    await page.getByRole("link", { name: "Download report" }).waitFor();

    // The review, as an operator records it.
    await page.getByLabel(/^Approve/).check();
    await page.getByLabel("Note").fill(NOTE);
    await page.getByRole("button", { name: "Record the review" }).click();
    await page.getByText(NOTE).first().waitFor();

    await page.getByRole("button", { name: "Create a certificate link" }).click();
    const linkUrl = await page.getByLabel("New certificate link").inputValue();
    expect(linkUrl).toMatch(/\/v1\/certificates\/cert_/);
    await shoot(ui, "report-01-verification-with-download");
    expect(ui.accessibility).toEqual([]);

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download the report with this link" }).click()]);
    expect(download.suggestedFilename()).toBe(`evidence-report-${verificationId}.pdf`);
    const pdf = Buffer.from(await (await download.createReadStream()).toArray().then((chunks) => Buffer.concat(chunks as Buffer[])));
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    const { text, pages, images } = await rendered("console", pdf).catch((err) => {
      throw new Error(`${String(err)}\n${workerLogTail()}`);
    });
    const flat = text.replace(/\s+/g, " ");

    expect(flat).toContain("Evidence report");
    expect(flat).toContain(verificationId);
    for (const id of captureIds) expect(flat).toContain(id);
    for (const digest of digests) expect(flat).toContain(digest);
    const verdict = (await tenant.getVerification(verificationId)).verdict!;
    expect(flat).toContain(verdict.label.toUpperCase());
    expect(flat).toMatch(/Photo of a screen\s+checked: (no )?screen detected/);
    expect(flat).toContain("Front of the car, whole plate visible");
    expect(flat).toContain(ANSWER);
    expect(flat).toMatch(/Location Result (verified: taken within|no_match: taken farther)/);
    expect(flat).toContain(NOTE);
    expect(flat).toContain("Decision approved");
    expect(flat).toContain(linkUrl);
    // The QR code reads back as the link (zbar, on the page drawn at print resolution).
    const qrPage = path.join(OUT, "console-qr");
    for (let n = 1; n <= pages; n++) {
      await run("pdftoppm", ["-r", "200", "-png", "-f", String(n), "-l", String(n), "-singlefile", path.join(OUT, "console.pdf"), qrPage]);
      const scanned = await run("zbarimg", ["-q", "--raw", `${qrPage}.png`]).catch(() => ({ stdout: "" }));
      if (scanned.stdout.trim() !== "") {
        expect(scanned.stdout.trim()).toBe(linkUrl);
        break;
      }
      expect(n, "no page carries a readable QR code").toBeLessThan(pages);
    }
    expect(flat).toContain("CLM-REPORT-1");
    expect(flat).toContain("verification.reviewed");
    // Three photos and nothing else drawn as an image (the map and the QR code are vector drawings).
    expect(images).toBe(3);
    expect(pages).toBeGreaterThanOrEqual(2);
  });

  it("downloads with an API key through the typed client; a link it does not hold is 400, another tenant's id 404", async () => {
    const pdf = Buffer.from(await tenant.downloadReport(verificationId));
    const { text } = await rendered("api", pdf);
    for (const digest of digests) expect(text.replace(/\s+/g, " ")).toContain(digest);
    expect(text).not.toMatch(/\/v1\/certificates\/cert_/);

    const forged = await api(`/v1/verifications/${verificationId}/report.pdf?certificate_link=cert_${"A".repeat(43)}`);
    expect(forged.status).toBe(400);
    expect(forged.body.error.fields.certificate_link).toMatch(/active certificate link/);
    expect((await api(`/v1/verifications/vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z/report.pdf`)).status).toBe(404);
    const unauthenticated = await checkedFetch(new Request(`${base()}/v1/verifications/${verificationId}/report.pdf`));
    expect(unauthenticated.status).toBe(401);
  });

  it("of a redacted verification carries no image or personal field, and says it was redacted", async () => {
    const redacted = await api(`/v1/verifications/${verificationId}/redact`, { method: "POST" });
    expect(redacted.status).toBe(200);
    const pdf = Buffer.from(await tenant.downloadReport(verificationId));
    const { text, images } = await rendered("redacted", pdf);
    const flat = text.replace(/\s+/g, " ");
    expect(flat).toMatch(/This verification was redacted on/);
    expect(images).toBe(0);
    for (const secret of [ANSWER, NOTE, "CLM-REPORT-1", "Front of the car", String(EXPECTED.lat), "48.138", "dev@"]) expect(flat).not.toContain(secret);
    // What stays: the ids, the hashes of what was received, the verdict.
    expect(flat).toContain(verificationId);
    for (const digest of digests) expect(flat).toContain(digest);
  });
});
