/** Sends every body in as few requests as the queue allows: `sendBatch` takes at most 100 messages. */
export async function sendAll<T>(queue: Queue<T>, bodies: T[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += 100) await queue.sendBatch(bodies.slice(i, i + 100).map((body) => ({ body })));
}
