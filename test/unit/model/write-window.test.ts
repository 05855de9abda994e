import { describe, expect, it } from "vitest";
import { VERIFICATION_WRITE_LIMIT, WriteWindow } from "../../../src/model/verification/write-window";

describe("WriteWindow (the writes per verification, counted in its Durable Object)", () => {
  const MINUTE = 60_000;
  const start = 1_800_000_000_000 - (1_800_000_000_000 % MINUTE);

  it("admits the limit within a window, then answers the seconds until the window ends", () => {
    const w = new WriteWindow({ limit: 3, windowMs: MINUTE });
    expect([w.hit(start), w.hit(start + 1), w.hit(start + 2)]).toEqual([undefined, undefined, undefined]);
    expect(w.hit(start + 10_000)).toBe(50);
    expect(w.hit(start + 59_001)).toBe(1);
    expect(w.hit(start + 59_999)).toBe(1);
  });

  it("starts over in the next window, the refused requests not carried over", () => {
    const w = new WriteWindow({ limit: 2, windowMs: MINUTE });
    for (let i = 0; i < 5; i += 1) w.hit(start + i);
    expect(w.hit(start + MINUTE)).toBeUndefined();
    expect(w.hit(start + MINUTE + 1)).toBeUndefined();
    expect(w.hit(start + MINUTE + 2)).toBe(60);
  });

  it("the capture flow's limit: 100 per minute", () => {
    expect(VERIFICATION_WRITE_LIMIT).toMatchObject({ limit: 100, windowMs: MINUTE });
  });
});
