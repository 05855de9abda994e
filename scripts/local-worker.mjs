// Shared by `npm start` (scripts/dev.mjs), the browser tests (test/browser/setup) and the benches:
// the local secrets, the D1 migrations and the dev tenant for a given local persistence directory,
// a free port, and waiting for a `wrangler dev` to answer.
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
export const wranglerEnv = { ...process.env, WRANGLER_SEND_METRICS: "false" };

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export function base62(length) {
  let out = "";
  while (out.length < length) for (const b of randomBytes(length)) if (b < 248 && out.length < length) out += BASE62[b % 62];
  return out;
}

/** The local secrets, generated (what `npm start` writes to .dev.vars on first run). */
export const SECRET_GENERATORS = {
  DEV_API_KEY: () => `pk_test_${base62(43)}`,
  SIGNING_SECRET: () => base62(48),
  SESSION_SECRET: () => base62(48),
  // The Ed25519 key that signs certificates: PKCS#8 DER as one line of base64 (docs/certificates.md, "Certificate keys").
  CERTIFICATE_SIGNING_KEY: () => generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
  BOT_SECRET: () => base62(48),
  TRIAL_TENANT_ID: () => `tnt_${stableUlidBody("trial-tenant")}`,
};

export function generateSecrets() {
  return Object.fromEntries(Object.entries(SECRET_GENERATORS).map(([k, make]) => [k, make()]));
}

/** A stable 26-character Crockford id derived from a string (so re-seeding is idempotent). */
function stableUlidBody(seed) {
  const digest = createHash("sha256").update(seed).digest();
  let out = "0";
  for (let i = 0; out.length < 26; i += 1) out += CROCKFORD[digest[i] % 32];
  return out;
}

/** Runs wrangler synchronously; throws with its output when it fails. */
export function runWrangler(args) {
  const result = spawnSync(wrangler, args, { cwd: root, env: wranglerEnv, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (result.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

const persistArgs = (persistTo) => (persistTo ? ["--persist-to", persistTo] : []);

export function applyMigrations(persistTo) {
  runWrangler(["d1", "migrations", "apply", "DB", "--local", ...persistArgs(persistTo)]);
}

const sql = (s) => `'${String(s).replace(/'/g, "''")}'`;

/**
 * Seeds (idempotently) the dev tenant with its full-scope `pk_test_` key and the dashboard user
 * dev@localhost (its owner), and the trial tenant named by TRIAL_TENANT_ID.
 */
export function seedDevTenant(vars, persistTo) {
  const now = Date.now();
  const tenantId = `tnt_${stableUlidBody("dev-tenant")}`;
  const keyHash = createHash("sha256").update(vars.DEV_API_KEY).digest("hex");
  const keyId = `key_${stableUlidBody(keyHash)}`;
  const prefix = `${vars.DEV_API_KEY.slice(0, 12)}…`;
  const userId = `usr_${stableUlidBody("dev-user")}`;
  const whsec = () => sql(`whsec_${randomBytes(32).toString("base64")}`);
  const statements = [
    `INSERT OR IGNORE INTO tenants (id, slug, display_name, webhook_secret, created_at) VALUES (${sql(tenantId)}, 'dev', 'Dev Tenant', ${whsec()}, ${now});`,
    `INSERT OR IGNORE INTO tenants (id, slug, display_name, webhook_secret, created_at) VALUES (${sql(vars.TRIAL_TENANT_ID)}, 'trial', 'Trial', ${whsec()}, ${now});`,
    `INSERT OR IGNORE INTO users (id, default_tenant_id, email, display_name, created_at) VALUES (${sql(userId)}, ${sql(tenantId)}, 'dev@localhost', 'Developer', ${now});`,
    `INSERT OR IGNORE INTO user_identities (provider, subject, user_id, created_at) SELECT 'dev', 'dev@localhost', id, ${now} FROM users WHERE email = 'dev@localhost';`,
    `INSERT OR IGNORE INTO memberships (tenant_id, user_id, role, created_at) SELECT ${sql(tenantId)}, id, 'owner', ${now} FROM users WHERE email = 'dev@localhost';`,
    `INSERT OR IGNORE INTO api_keys (id, tenant_id, environment, scope, key_hash, key_prefix, name, created_at) VALUES (${sql(keyId)}, ${sql(tenantId)}, 'test', 'full', ${sql(keyHash)}, ${sql(prefix)}, 'dev key (from .dev.vars)', ${now});`,
  ];
  runWrangler(["d1", "execute", "DB", "--local", ...persistArgs(persistTo), "--command", statements.join(" ")]);
  return { tenantId };
}

/**
 * `wrangler dev` gives `--var` and `--env-file` to the first Worker of a session only; the others
 * read `.dev.vars` beside their configuration. For a session with its own secrets (the browser
 * tests), this writes a copy of the analysis Worker's configuration into `dir` (its paths made
 * absolute) with a `.dev.vars` holding `vars`, and returns the copy's path.
 */
export function analysisConfigWith(dir, vars) {
  const text = readFileSync(path.join(root, "wrangler.analysis.toml"), "utf8")
    .replace(/^main = "(.+)"$/m, (_, main) => `main = ${JSON.stringify(path.join(root, main))}`)
    .replace(/^migrations_dir = "(.+)"$/gm, (_, dir) => `migrations_dir = ${JSON.stringify(path.join(root, dir))}`);
  mkdirSync(dir, { recursive: true });
  const config = path.join(dir, "wrangler.analysis.toml");
  writeFileSync(config, text);
  writeFileSync(path.join(dir, ".dev.vars"), Object.entries(vars).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join("\n") + "\n");
  return config;
}

/** A TCP port nothing listens on right now (127.0.0.1). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 2xx; fails early when the child exits, with the tail of its output. */
export async function waitUntilUp(url, child, log, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log()}`);
    try {
      const res = await fetch(url);
      await res.text();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not come up on ${url}:\n${log()}`);
}
