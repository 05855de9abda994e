import { createDb } from "../db/client";
import { queueFailures } from "../db/schema";
import type { QueueMessage } from "../events/messages";

/** Messages that exhausted their retries: kept in D1 for inspection and replay. */
export async function recordDeadLetter(message: QueueMessage, env: Env, queue: string, messageId: string): Promise<void> {
  await createDb(env.DB).insert(queueFailures).values({ queue, messageId, body: JSON.stringify(message), createdAt: Date.now() });
}
