/** Sends every body in as few requests as the queue allows: `sendBatch` takes at most 100 messages. */
export async function sendAll<T>(queue: Queue<T>, bodies: T[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += 100) await queue.sendBatch(bodies.slice(i, i + 100).map((body) => ({ body })));
}

/**
 * Like `sendAll`, but a refused request does not stop the rest: answers the bodies that were not
 * sent (and the first error), so a caller can retry exactly those.
 */
export async function sendEach<T>(queue: Queue<T>, bodies: T[]): Promise<{ unsent: T[]; error?: unknown }> {
  const unsent: T[] = [];
  let error: unknown;
  for (let i = 0; i < bodies.length; i += 100) {
    const chunk = bodies.slice(i, i + 100);
    try {
      await queue.sendBatch(chunk.map((body) => ({ body })));
    } catch (err) {
      error ??= err;
      unsent.push(...chunk);
    }
  }
  return { unsent, ...(error !== undefined ? { error } : {}) };
}
