import { describe, expect, it } from "vitest";
import { FAIL_AFTER_MS, stragglerAction } from "../../src/domain/verification/stragglers";

const MIN = 60_000;

describe("the straggler sweep's schedule (per minutely run, by the age of the complete evidence)", () => {
  it("waits 3 minutes, re-drives at 3, 7 and 11 minutes (one run each), fails from 13 minutes on", () => {
    const at = (minutes: number) => stragglerAction(0, minutes * MIN);
    expect([0, 1, 2, 2.99].map(at)).toEqual(["wait", "wait", "wait", "wait"]);
    expect([3, 3.5, 3.99].map(at)).toEqual(["redrive", "redrive", "redrive"]);
    expect([4, 5, 6, 6.99].map(at)).toEqual(["wait", "wait", "wait", "wait"]);
    expect([7, 11].map(at)).toEqual(["redrive", "redrive"]);
    expect([8, 10, 12, 12.99].map(at)).toEqual(["wait", "wait", "wait", "wait"]);
    expect([13, 14, 60, 24 * 60].map(at)).toEqual(["fail", "fail", "fail", "fail"]);
  });

  it("re-drives exactly once per window of minutely runs, wherever in the minute the evidence became complete", () => {
    for (const offset of [0, 1, 17_000, 59_999]) {
      const runs = Array.from({ length: 16 }, (_, m) => (m + 1) * MIN - offset);
      const actions = runs.map((now) => stragglerAction(0, now));
      expect(actions.filter((a) => a === "redrive")).toHaveLength(3);
      // The first run at or after 13 minutes fails it: within 14 of the evidence, before the 15 promised.
      const failAt = runs[actions.indexOf("fail")]!;
      expect(failAt).toBeGreaterThanOrEqual(FAIL_AFTER_MS);
      expect(failAt).toBeLessThan(FAIL_AFTER_MS + MIN);
    }
  });
});
