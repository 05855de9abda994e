#!/usr/bin/env node
// `npm start`: local development with every binding simulated by miniflare (the Rate Limiting
// bindings counted in process memory instead, as Cloudflare counts them: scripts/local-rate-limits.worker.js).
//  1. writes .dev.vars (secrets and the dev tenant's API key) on first start, keeps it afterwards;
//  2. applies the D1 migrations to the local database;
//  3. seeds the dev tenant and its pk_test_ key, the dashboard user dev@localhost (sign in at
//     /v1/auth/dev/login) and the trial tenant (TRIAL_TENANT_ID), all idempotent;
//  4. bundles both Workers as `wrangler deploy` would (the API Worker's [build] step builds the
//     capture page) and runs each in a workerd process of its own (scripts/local-runtime.mjs): the
//     API Worker (wrangler.toml) on http://localhost:8787, and the analysis Worker
//     (wrangler.analysis.toml), which consumes the analysis queue, so its decoding never runs on the
//     thread that answers the capture links. Both get the secrets of .dev.vars. The port answers only
//     once the analysis Worker consumes its queues (a first capture is analysed at once);
//  5. runs the minutely cron at each minute, as Cloudflare does in production: it arms the objects
//     of verifications about to expire, and the backstops (src/scheduled.ts). The daily one stays
//     manual: /cdn-cgi/local/scheduled?cron=17+3+*+*+*.
// `npm run dev` is the editing loop instead: one `wrangler dev` session with both Workers (one
// thread), rebuilt when a source changes.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startLocalRuntime } from "./local-runtime.mjs";
import { generateDevC2paSigner } from "./dev-c2pa-signer.mjs";
import { applyMigrations, root, SECRET_GENERATORS, seedDevTenant, wrangler, wranglerEnv } from "./local-worker.mjs";

const varsPath = path.join(root, ".dev.vars");
const port = process.env.PORT ?? "8787";

function readVars() {
  if (!existsSync(varsPath)) return {};
  return Object.fromEntries(
    readFileSync(varsPath, "utf8")
      .split("\n")
      .map((line) => line.match(/^\s*([A-Z0-9_]+)\s*=\s*"?(.*?)"?\s*$/))
      .filter(Boolean)
      .map((m) => [m[1], m[2]]),
  );
}

/** The name the dev deployment signs Content Credentials under (.dev.vars DEPLOYMENT_NAME, editable). */
const DEV_DEPLOYMENT_NAME = "Verification service (local development)";

async function ensureVars() {
  const vars = readVars();
  const missing = Object.keys(SECRET_GENERATORS).filter((k) => !vars[k]);
  const lines = missing.map((k) => `${k}="${(vars[k] = SECRET_GENERATORS[k]())}"`);
  if (!vars.DEPLOYMENT_NAME) lines.push(`DEPLOYMENT_NAME="${(vars.DEPLOYMENT_NAME = DEV_DEPLOYMENT_NAME)}"`);
  // The dev C2PA signer (Content Credentials): a root made here and a signing certificate under it, named after the deployment.
  if (!vars.C2PA_SIGNING_KEY || !vars.C2PA_SIGNING_CERTS) {
    const signer = await generateDevC2paSigner(vars.DEPLOYMENT_NAME);
    for (const k of ["C2PA_SIGNING_KEY", "C2PA_SIGNING_CERTS"]) lines.push(`${k}="${(vars[k] = signer[k])}"`);
  }
  if (lines.length > 0) {
    const header = existsSync(varsPath) ? "" : "# Local development secrets, written by `npm start` on first run. Not committed.\n";
    writeFileSync(varsPath, `${header}${existsSync(varsPath) ? readFileSync(varsPath, "utf8").replace(/\n?$/, "\n") : ""}${lines.join("\n")}\n`);
  }
  return vars;
}

function step(what, fn) {
  try {
    return fn();
  } catch (err) {
    process.stderr.write(`${what} failed: ${err.message}\n`);
    process.exit(1);
  }
}

const vars = await ensureVars();
console.log("Applying D1 migrations to the local database…");
step("Applying migrations", () => applyMigrations());
const { tenantId } = step("Seeding the dev tenant", () => seedDevTenant(vars));
console.log(`
  Verification service (local)  http://localhost:${port}
  API reference                 http://localhost:${port}/docs
  Dev tenant                    ${tenantId} (slug "dev")
  Dev API key (.dev.vars)       ${vars.DEV_API_KEY}
  Dashboard sign-in             http://localhost:${port}/v1/auth/dev/login   (dev@localhost, dev tenant)
  Trial tenant                  ${vars.TRIAL_TENANT_ID} (slug "trial")
  Outbox (emails, messages)     http://localhost:${port}/v1/dev/outbox

  curl -H "Authorization: Bearer ${vars.DEV_API_KEY}" -H 'Content-Type: application/json' -d '{"max_captures":2}' localhost:${port}/v1/verifications
`);
// On another port, upload URLs must point there too, or the capture page would PUT to :8787.
const baseUrl = port === "8787" ? {} : { PUBLIC_BASE_URL: `http://localhost:${port}` };
const onStop = [];
const runCron = process.argv.includes("--watch") ? startWranglerDev() : await startRuntime();
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => Promise.all(onStop.map((stop) => stop(signal))).finally(() => process.exit(0)));

/** `npm start`: each Worker in a workerd process of its own; returns how to run a cron. */
async function startRuntime() {
  console.log("Bundling the Workers (as wrangler deploy would) and starting them…");
  const runtime = await startLocalRuntime({ persistDir: path.join(root, ".wrangler", "state"), port: Number(port), vars: { ...vars, ...baseUrl } });
  onStop.push(() => runtime.dispose());
  console.log(`Ready on http://localhost:${port} (the analysis Worker runs in a process of its own)`);
  return (cron) => runtime.scheduled(cron);
}

/** `npm run dev`: one `wrangler dev` session with both Workers, rebuilt on every change. */
function startWranglerDev() {
  const configs = ["-c", "wrangler.toml", "-c", "wrangler.analysis.toml"];
  const flags = Object.entries(baseUrl).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const child = spawn(wrangler, ["dev", ...configs, "--port", port, "--ip", "127.0.0.1", "--test-scheduled", ...flags], { cwd: root, env: wranglerEnv, stdio: "inherit" });
  onStop.push((signal) => child.kill(signal));
  child.on("exit", (code) => process.exit(code ?? 0));
  return (cron) => fetch(`http://127.0.0.1:${port}/__scheduled?cron=${encodeURIComponent(cron).replaceAll("%20", "+")}`).then((res) => res.arrayBuffer());
}

// The minutely cron, on the minute (its sweep arms the expiries of the minute after next).
const MINUTE = 60_000;
function minutely() {
  runCron("* * * * *").catch(() => undefined); // not up yet, or restarting: the next minute runs it
  setTimeout(minutely, MINUTE - (Date.now() % MINUTE));
}
setTimeout(minutely, MINUTE - (Date.now() % MINUTE));
