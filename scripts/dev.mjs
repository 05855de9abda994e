#!/usr/bin/env node
// `npm start`: local development with every binding simulated by miniflare.
//  1. writes .dev.vars (secrets and the dev tenant's API key) on first start, keeps it afterwards;
//  2. applies the D1 migrations to the local database;
//  3. seeds the dev tenant and its pk_test_ key, the dashboard user dev@localhost (sign in at
//     /v1/auth/dev/login) and the trial tenant (TRIAL_TENANT_ID) — all idempotent;
//  4. runs `wrangler dev` on http://localhost:8787.
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const varsPath = path.join(root, ".dev.vars");
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
const env = { ...process.env, WRANGLER_SEND_METRICS: "false" };
const port = process.env.PORT ?? "8787";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function base62(length) {
  let out = "";
  while (out.length < length) for (const b of randomBytes(length)) if (b < 248 && out.length < length) out += BASE62[b % 62];
  return out;
}

/** A stable 26-character Crockford id derived from a string (so re-seeding is idempotent). */
function stableUlidBody(seed) {
  const digest = createHash("sha256").update(seed).digest();
  let out = "0";
  for (let i = 0; out.length < 26; i += 1) out += CROCKFORD[digest[i] % 32];
  return out;
}

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

function ensureVars() {
  const vars = readVars();
  const wanted = {
    DEV_API_KEY: () => `pk_test_${base62(43)}`,
    SIGNING_SECRET: () => base62(48),
    SESSION_SECRET: () => base62(48),
    BOT_SECRET: () => base62(48),
    TRIAL_TENANT_ID: () => `tnt_${stableUlidBody("trial-tenant")}`,
  };
  const missing = Object.keys(wanted).filter((k) => !vars[k]);
  if (missing.length > 0) {
    const lines = missing.map((k) => `${k}="${(vars[k] = wanted[k]())}"`);
    const header = existsSync(varsPath) ? "" : "# Local development secrets, written by `npm start` on first run. Not committed.\n";
    writeFileSync(varsPath, `${header}${existsSync(varsPath) ? readFileSync(varsPath, "utf8").replace(/\n?$/, "\n") : ""}${lines.join("\n")}\n`);
  }
  return vars;
}

function run(args) {
  const result = spawnSync(wrangler, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    process.exit(result.status ?? 1);
  }
}

const sql = (s) => `'${String(s).replace(/'/g, "''")}'`;

function seed(vars) {
  const now = Date.now();
  const tenantId = `tnt_${stableUlidBody("dev-tenant")}`;
  const keyHash = createHash("sha256").update(vars.DEV_API_KEY).digest("hex");
  const keyId = `key_${stableUlidBody(keyHash)}`;
  const prefix = `${vars.DEV_API_KEY.slice(0, 12)}…`;
  const webhookSecret = `whsec_${randomBytes(32).toString("base64")}`;
  const userId = `usr_${stableUlidBody("dev-user")}`;
  const trialWebhookSecret = `whsec_${randomBytes(32).toString("base64")}`;
  const statements = [
    `INSERT OR IGNORE INTO tenants (id, slug, display_name, webhook_secret, created_at) VALUES (${sql(tenantId)}, 'dev', 'Dev Tenant', ${sql(webhookSecret)}, ${now});`,
    `INSERT OR IGNORE INTO tenants (id, slug, display_name, webhook_secret, created_at) VALUES (${sql(vars.TRIAL_TENANT_ID)}, 'trial', 'Trial', ${sql(trialWebhookSecret)}, ${now});`,
    `INSERT OR IGNORE INTO users (id, tenant_id, email, display_name, created_at) VALUES (${sql(userId)}, ${sql(tenantId)}, 'dev@localhost', 'Developer', ${now});`,
    `INSERT OR IGNORE INTO user_identities (provider, subject, user_id, created_at) SELECT 'dev', 'dev@localhost', id, ${now} FROM users WHERE email = 'dev@localhost';`,
    `INSERT OR IGNORE INTO api_keys (id, tenant_id, environment, scope, key_hash, key_prefix, name, created_at) VALUES (${sql(keyId)}, ${sql(tenantId)}, 'test', 'full', ${sql(keyHash)}, ${sql(prefix)}, 'dev key (from .dev.vars)', ${now});`,
  ];
  run(["d1", "execute", "DB", "--local", "--command", statements.join(" ")]);
  return { tenantId };
}

const vars = ensureVars();
console.log("Applying D1 migrations to the local database…");
run(["d1", "migrations", "apply", "DB", "--local"]);
const { tenantId } = seed(vars);
console.log(`
  Verification service (local)  http://localhost:${port}
  API reference                 http://localhost:${port}/docs
  Dev tenant                    ${tenantId} (slug "dev")
  Dev API key (.dev.vars)       ${vars.DEV_API_KEY}
  Dashboard sign-in             http://localhost:${port}/v1/auth/dev/login   (dev@localhost, dev tenant)
  Trial tenant                  ${vars.TRIAL_TENANT_ID} (slug "trial")
  Outbox (emails, messages)     http://localhost:${port}/v1/dev/outbox

  curl -H "Authorization: Bearer ${vars.DEV_API_KEY}" -d '{"max_captures":2}' localhost:${port}/v1/verifications
`);
const child = spawn(wrangler, ["dev", "--port", port, "--ip", "127.0.0.1", ...process.argv.slice(2)], { cwd: root, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
