/**
 * One task at a time in this isolate, with at most `queued` requests waiting for their turn (`busy()`
 * is thrown beyond that): for work that must not overlap in one isolate's memory.
 *
 * Not p-limit, whose turn passes by the finishing request resolving a promise the next one awaits:
 * a request cancelled while it holds the turn or waits (its client went away) never settles, and its
 * turn is then held for as long as the isolate lives; and a request waiting on nothing of its own
 * is cancelled by workerd as hung when the one ahead runs outside a request (as a test does). Here a
 * waiting request looks at the shared state on its own timer every `pollMs`, and a turn or a place
 * in the queue lapses `leaseMs` after its holder last showed itself. Waiting requests are not served
 * in order: the first to look after the turn is free takes it.
 */
export interface IsolateTurn {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** The task holding the turn (0 or 1) and the requests waiting for it. */
  counts(): { running: number; waiting: number };
}

export function isolateTurn(options: { queued: number; leaseMs: number; pollMs: number; busy: () => Error }): IsolateTurn {
  let holder: { since: number } | null = null;
  /** Each waiting request, by when it last looked. */
  const waiters = new Map<symbol, number>();

  const lapse = (now: number) => {
    if (holder && now - holder.since > options.leaseMs) holder = null;
    for (const [waiter, seen] of waiters) if (now - seen > options.leaseMs) waiters.delete(waiter);
  };

  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      lapse(Date.now());
      if (holder) {
        if (waiters.size >= options.queued) throw options.busy();
        const waiter = Symbol("waiter");
        waiters.set(waiter, Date.now());
        try {
          while (holder) {
            await new Promise((resolve) => setTimeout(resolve, options.pollMs));
            const now = Date.now();
            waiters.set(waiter, now);
            lapse(now);
          }
        } finally {
          waiters.delete(waiter);
        }
      }
      const mine = { since: Date.now() };
      holder = mine;
      try {
        return await task();
      } finally {
        if (holder === mine) holder = null;
      }
    },
    counts() {
      lapse(Date.now());
      return { running: holder ? 1 : 0, waiting: waiters.size };
    },
  };
}
