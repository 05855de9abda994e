/**
 * The capture page on a slow phone connection (`npm run bench:page`): time from opening the link
 * to the live camera preview, in Chromium (/usr/bin/chromium via playwright-core) throttled with
 * DevTools' network emulation to 1.6 Mbps down, 750 kbps up, 150 ms RTT (Lighthouse's "slow 4G").
 *
 * The Workers run as `npm start` runs them (`wrangler dev` with both configurations, the page's
 * static assets served by the API Worker), with a throwaway persistence directory and registry.
 * Each run is a cold visit: a fresh browser profile (empty cache), a new verification. The clock
 * starts before navigation and stops when the <video> has its first frame (readyState ≥ 2) after
 * the page's Start button was pressed as soon as it appeared (a person takes longer; the page's own
 * work is what is measured). The fake camera answers at once (--use-fake-device-for-media-stream).
 * Then the preview runs for 3 s and the page's main-thread busy time over them is read from DevTools
 * (`Performance.getMetrics` TaskDuration): the cost of watching the preview for the capture-integrity
 * record (issue 32), which a phone pays for as long as the camera is open.
 *
 *   npm run bench:page -- [--runs 7]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { buildPage } from "../scripts/build-page.mjs";
import { analysisConfigWith, applyMigrations, freePort, generateSecrets, root, seedDevTenant, waitUntilUp, wrangler, wranglerEnv } from "../scripts/local-worker.mjs";
import { fmt, load, machine, median } from "./lib/measure";

const { values: args } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
const THROTTLE = { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8) * 0.9, uploadThroughput: (750e3 / 8) * 0.9 };
const GOAL_MS = 2500;

await buildPage();
const persistDir = mkdtempSync(path.join(tmpdir(), "vfy-bench-page-"));
const secrets = generateSecrets();
applyMigrations(persistDir);
seedDevTenant(secrets, persistDir);
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const analysisConfig = analysisConfigWith(path.join(persistDir, "analysis-config"), { SIGNING_SECRET: secrets.SIGNING_SECRET, SESSION_SECRET: secrets.SESSION_SECRET });
const vars = { PUBLIC_BASE_URL: baseUrl, SIGNING_SECRET: secrets.SIGNING_SECRET, SESSION_SECRET: secrets.SESSION_SECRET, CERTIFICATE_SIGNING_KEY: secrets.CERTIFICATE_SIGNING_KEY };
let output = "";
const worker = spawn(
  wrangler,
  [
    "dev", "-c", "wrangler.toml", "-c", analysisConfig,
    "--port", String(port), "--ip", "127.0.0.1", "--inspector-port", String(await freePort()),
    "--persist-to", persistDir, "--show-interactive-dev-session=false",
    ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ],
  { cwd: root, env: { ...wranglerEnv, CI: "true", WRANGLER_REGISTRY_PATH: path.join(persistDir, "registry") }, stdio: ["ignore", "pipe", "pipe"], detached: true },
);
worker.stdout!.on("data", (d: Buffer) => (output += d.toString()));
worker.stderr!.on("data", (d: Buffer) => (output += d.toString()));

interface Run {
  landingMs: number;
  previewMs: number;
  /** Main-thread busy time during 3 s of preview after the first frame. */
  previewBusyMs: number;
  /** From pressing the shutter to the photo shown for review. */
  shutterMs: number;
  bytes: number;
  requests: number;
}

async function visit(): Promise<Run> {
  const created = await fetch(`${baseUrl}/v1/verifications`, {
    method: "POST",
    headers: { Authorization: `Bearer ${secrets.DEV_API_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ steps: [{ key: "front", type: "image", description: "Front of the car", min: 1, max: 1 }] }),
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const profile = mkdtempSync(path.join(tmpdir(), "vfy-bench-page-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"],
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", THROTTLE);
    let bytes = 0;
    let requests = 0;
    cdp.on("Network.loadingFinished", (e: { encodedDataLength: number }) => {
      bytes += e.encodedDataLength;
      requests += 1;
    });
    const t0 = performance.now();
    await page.goto(`${baseUrl}/c/${id}`, { waitUntil: "commit" });
    const start = page.getByRole("button", { name: "Start" });
    await start.waitFor();
    const landingMs = performance.now() - t0;
    await start.click();
    await page.locator("video").waitFor();
    // (runs in the page: `v` is the <video> element)
    await page.locator("video").evaluate(
      (v: { readyState: number; addEventListener(type: string, listener: () => void): void }) =>
        new Promise((r) => (v.readyState >= 2 ? r(null) : v.addEventListener("loadeddata", () => r(null)))),
    );
    const previewMs = performance.now() - t0;
    await cdp.send("Performance.enable");
    const busy = async () => ((await cdp.send("Performance.getMetrics")) as { metrics: Array<{ name: string; value: number }> }).metrics.find((m) => m.name === "TaskDuration")!.value;
    const before = await busy();
    await new Promise((r) => setTimeout(r, 3000));
    const previewBusyMs = ((await busy()) - before) * 1000;
    // The shutter: from the press to the photo shown for review (the snapshot, and now the burst's measures).
    const pressed = performance.now();
    await page.getByRole("button", { name: "Take photo" }).click();
    await page.getByRole("img", { name: "The photo you took" }).waitFor();
    const shutterMs = performance.now() - pressed;
    return { landingMs, previewMs, previewBusyMs, shutterMs, bytes, requests };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

try {
  await waitUntilUp(`${baseUrl}/`, worker, () => output.slice(-4000), 120_000);
  await visit(); // warm-up: the Workers' first requests compile and load, not the page's cost
  const loadBefore = load();
  const runs: Run[] = [];
  for (let i = 0; i < Number(args.runs); i += 1) runs.push(await visit());
  const preview = median(runs.map((r) => r.previewMs));
  const out = {
    date: new Date().toISOString(),
    machine: machine(),
    load: { before: loadBefore, after: load() },
    throttle: "1.6 Mbps down, 750 kbps up, 150 ms RTT (×0.9 goodput, as Lighthouse)",
    runs: runs.length,
    landingMsMedian: median(runs.map((r) => r.landingMs)),
    previewMsMedian: preview,
    previewMsMax: Math.max(...runs.map((r) => r.previewMs)),
    previewBusyMsMedian: median(runs.map((r) => r.previewBusyMs)),
    shutterMsMedian: median(runs.map((r) => r.shutterMs)),
    bytes: median(runs.map((r) => r.bytes)),
    requests: median(runs.map((r) => r.requests)),
  };
  console.log(`\n${out.date}  ${out.machine}  load ${out.load.before} → ${out.load.after}`);
  console.log(`${out.runs} cold visits, ${out.throttle}`);
  console.log("| landing (Start visible), median | camera preview, median / worst | transferred | requests | main thread busy in 3 s of preview, median | shutter to review, median | goal |");
  console.log("|---|---|---|---|---|---|---|");
  console.log(
    `| ${fmt(out.landingMsMedian)} ms | ${fmt(out.previewMsMedian)} / ${fmt(out.previewMsMax)} ms | ${(out.bytes / 1024).toFixed(1)} KiB | ${out.requests} | ${fmt(out.previewBusyMsMedian)} ms | ${fmt(out.shutterMsMedian)} ms | ≤ ${GOAL_MS} ms: ${preview <= GOAL_MS ? "met" : "not met"} |`,
  );
  console.log(`JSON ${JSON.stringify(out)}`);
} finally {
  if (worker.pid && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    process.kill(-worker.pid, "SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (worker.exitCode === null) process.kill(-worker.pid, "SIGKILL");
  }
  rmSync(persistDir, { recursive: true, force: true });
}
