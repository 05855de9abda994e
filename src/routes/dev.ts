import { Hono } from "hono";
import { createDb } from "../db/client";
import type { AppEnv } from "../env";
import { isLocalRequest } from "../env";
import { ApiError } from "../lib/errors";
import { iso } from "../lib/time";
import { recentOutbound } from "../providers/outbound";

/** Local development only (404 elsewhere, see `isLocalRequest`): what would have been sent to people. */
const app = new Hono<AppEnv>();

app.get("/v1/dev/outbox", async (c) => {
  if (!isLocalRequest(c.env, c.req.url)) throw new ApiError("not_found", "No such route.");
  const rows = await recentOutbound(createDb(c.env.DB));
  return c.json({
    items: rows.map((m) => ({
      id: m.id,
      channel: m.channel,
      recipient: m.recipient,
      ...(m.subject ? { subject: m.subject } : {}),
      body: m.body,
      ...(m.verificationId ? { verification_id: m.verificationId } : {}),
      provider: m.provider,
      status: m.status,
      created_at: iso(m.createdAt),
    })),
  });
});

export default app;
