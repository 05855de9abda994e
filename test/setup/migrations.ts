import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Setup files can run more than once per file; applyD1Migrations only applies what is missing.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
