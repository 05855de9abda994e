import { describe, expect, it } from "vitest";
import { refreshed } from "../../client/console/lib/list-refresh";

/* The console list's live refresh (settings probe of 2026-12-04, S3). Ids sort as ULIDs do: newest first. */
const v = (n: number) => ({ id: `vfy_${String(n).padStart(4, "0")}` });
const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

describe("a refresh of the verification list", () => {
  it("keeps the rows new verifications pushed out of the refreshed range (more than 100 loaded)", () => {
    const loaded = Array.from({ length: 109 }, (_, i) => v(1000 - i)); // 1000 … 892
    const fresh = [v(1003), v(1002), v(1001), ...loaded.slice(0, 97)]; // three new ones, then 1000 … 904
    const after = refreshed(loaded, fresh, 100);
    expect(after).toHaveLength(112);
    expect(ids(after)).toEqual(ids([v(1003), v(1002), v(1001), ...loaded]));
  });

  it("drops a loaded row inside the range that the refresh no longer lists (it stopped matching a filter)", () => {
    const loaded = [v(10), v(9), v(8), v(7), v(6), v(5)];
    const after = refreshed(loaded, [v(10), v(8), v(7)], 3);
    expect(ids(after)).toEqual(ids([v(10), v(8), v(7), v(6), v(5)]));
  });

  it("a short answer reached the end of the list: every loaded row it does not list is gone", () => {
    expect(ids(refreshed([v(3), v(2), v(1)], [v(4), v(3)], 25))).toEqual(ids([v(4), v(3)]));
  });
});
