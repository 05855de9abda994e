import { desc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { outboundMessages } from "../db/schema";
import { newId } from "../lib/ids";

/**
 * Messages to people (email, WhatsApp) all pass through `outbound_messages`: it makes each one
 * at-most-once per cause (`dedupe_key`) and, in local development, is the outbox a developer reads
 * at `GET /v1/dev/outbox` instead of anything being sent.
 */
export interface OutboundMessage {
  dedupeKey: string;
  channel: "email" | "whatsapp";
  recipient: string;
  subject?: string;
  body: string;
  /**
   * What `outbound_messages` keeps instead of `body` when the body carries a live credential (a
   * sign-in link): the message is recorded, the secret goes only to the recipient.
   */
  storedBody?: string;
  verificationId?: string;
}

export interface Transport {
  readonly name: string;
  /** Delivers the message; throws on failure. */
  send(message: OutboundMessage): Promise<void>;
}

/** Records locally without sending: the development transport for every channel. */
export const recordOnlyTransport: Transport = {
  name: "local-outbox",
  async send() {
    /* recorded by sendOnce, nothing leaves the machine */
  },
};

/**
 * Sends a message once per `dedupeKey`: claims the key with an insert first, so a redelivered event
 * finds it taken and sends nothing. Returns false when it was already sent (or recorded).
 */
export async function sendOnce(db: Db, transport: Transport, message: OutboundMessage, now = Date.now()): Promise<boolean> {
  const id = newId("message", now);
  const row = {
    id,
    dedupeKey: message.dedupeKey,
    channel: message.channel,
    recipient: message.recipient,
    subject: message.subject ?? null,
    body: message.storedBody ?? message.body,
    verificationId: message.verificationId ?? null,
    provider: transport.name,
    status: transport === recordOnlyTransport ? ("recorded" as const) : ("sent" as const),
    error: null,
    createdAt: now,
  };
  const claimed = await db.insert(outboundMessages).values(row).onConflictDoNothing({ target: outboundMessages.dedupeKey }).run();
  if (claimed.meta.changes !== 1) return false;
  try {
    await transport.send(message);
  } catch (err) {
    // Release the claim so the queue's retry can try again.
    await db.delete(outboundMessages).where(eq(outboundMessages.id, id)).run();
    throw err;
  }
  return true;
}

export async function recentOutbound(db: Db, limit = 50) {
  return db.select().from(outboundMessages).orderBy(desc(outboundMessages.id)).limit(limit);
}
