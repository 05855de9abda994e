import { describe, expect, it } from "vitest";
import { isolateTurn } from "../../src/lib/isolate-turn";

class Busy extends Error {}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("isolateTurn", () => {
  it("runs one task at a time, at most `queued` waiting, and refuses one more", async () => {
    const turn = isolateTurn({ queued: 2, leaseMs: 60_000, pollMs: 5, busy: () => new Busy() });
    let active = 0;
    let most = 0;
    const task = (value: number) => async () => {
      active += 1;
      most = Math.max(most, active);
      await sleep(15);
      active -= 1;
      return value;
    };
    const running = [turn.run(task(1)), turn.run(task(2)), turn.run(task(3))];
    expect(turn.counts()).toEqual({ running: 1, waiting: 2 });
    await expect(turn.run(task(4))).rejects.toBeInstanceOf(Busy);
    expect(await Promise.all(running)).toEqual([1, 2, 3]);
    expect(most).toBe(1);
    expect(turn.counts()).toEqual({ running: 0, waiting: 0 });
  });

  it("gives the turn up when its task throws", async () => {
    const turn = isolateTurn({ queued: 1, leaseMs: 60_000, pollMs: 5, busy: () => new Busy() });
    await expect(turn.run(() => Promise.reject(new Error("failed")))).rejects.toThrow("failed");
    expect(await turn.run(async () => "next")).toBe("next");
  });

  it("a turn whose task never settles (its request was cancelled) lapses after the lease", async () => {
    const turn = isolateTurn({ queued: 1, leaseMs: 40, pollMs: 5, busy: () => new Busy() });
    void turn.run(() => new Promise<never>(() => undefined));
    expect(turn.counts()).toEqual({ running: 1, waiting: 0 });
    const started = Date.now();
    expect(await turn.run(async () => "after the lease")).toBe("after the lease");
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect(turn.counts()).toEqual({ running: 0, waiting: 0 });
  });
});
