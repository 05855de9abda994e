import { createMiddleware } from "hono/factory";
import { createDb } from "../db/client";
import { apiKeys } from "../db/schema";
import { eq } from "drizzle-orm";
import type { AppEnv } from "../env";
import { settings } from "../env";
import { ApiError } from "../lib/errors";
import { resolveApiKey } from "./api-keys";
import { readSession } from "./session";

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
const LAST_USED_GRANULARITY_MS = 60_000;

/** Which credentials a route accepts; checked in this order. */
export interface AuthOptions {
  apiKey?: "full" | "any";
  session?: boolean;
}

/**
 * Authenticates the caller and puts the Principal on the context. Every failure to authenticate is
 * the same 401; an authenticated caller without the right (a publishable key) gets 403.
 */
export function authenticate(options: AuthOptions) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header("Authorization");
    if (header !== undefined && options.apiKey) {
      const token = BEARER.exec(header)?.[1];
      const db = createDb(c.env.DB);
      const key = token ? await resolveApiKey(db, token, settings(c.env).keyEnvironment) : null;
      if (!key) throw new ApiError("unauthorized", "Invalid API key.");
      if (options.apiKey === "full" && key.scope !== "full") {
        throw new ApiError("forbidden", "A publishable key may only create verifications.");
      }
      c.set("principal", { kind: "api_key", tenantId: key.tenantId, keyId: key.id, scope: key.scope });
      touchKey((work) => c.executionCtx.waitUntil(work), db, key.id);
      return next();
    }
    if (options.session) {
      const principal = await readSession(c);
      if (principal === "csrf") throw new ApiError("forbidden", "Cross-origin request refused.");
      if (principal) {
        c.set("principal", principal);
        return next();
      }
    }
    throw new ApiError("unauthorized", header === undefined ? "Authentication required." : "Invalid API key.");
  });
}

const lastTouched = new Map<string, number>();

/** Records `last_used_at` off the request path, at most once a minute per key and isolate. */
function touchKey(waitUntil: (work: Promise<unknown>) => void, db: ReturnType<typeof createDb>, keyId: string): void {
  const now = Date.now();
  if ((lastTouched.get(keyId) ?? 0) > now - LAST_USED_GRANULARITY_MS) return;
  lastTouched.set(keyId, now);
  waitUntil(
    db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(eq(apiKeys.id, keyId))
      .run()
      .then(() => undefined, () => undefined),
  );
}
