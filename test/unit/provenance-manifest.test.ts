import { describe, expect, it } from "vitest";
import manifestText from "../../scripts/eval/provenance-data/manifest.tsv?raw";
import { CLASSES, COLUMNS, formatManifest, parseManifest } from "../../scripts/eval/provenance-data/manifest";

// The provenance set (scripts/eval/provenance-data/) is rebuilt from public sources by repository,
// commit, path and sha256: a row without one of them could never be rebuilt or checked.
describe("the provenance manifest", () => {
  const entries = parseManifest(manifestText);

  it("names a source, a commit, a path and a sha256 on every row", () => {
    expect(entries.length).toBeGreaterThan(100);
    for (const e of entries) {
      expect(e.repo, e.path).toMatch(/^([\w.-]+\/[\w.-]+|debian:[a-z0-9.+-]+)$/);
      expect(e.commit, e.path).toMatch(e.repo.startsWith("debian:") ? /^[0-9A-Za-z.+~:-]+$/ : /^[0-9a-f]{40}$/);
      expect(e.path.length, e.repo).toBeGreaterThan(0);
      expect(e.sha256, e.path).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("reads back what it writes and holds each file once, by content", () => {
    expect(parseManifest(formatManifest(entries))).toEqual(entries);
    expect(new Set(entries.map((e) => e.sha256)).size).toBe(entries.length);
  });

  it("has files of every class", () => {
    for (const cls of CLASSES) expect(entries.filter((e) => e.cls === cls).length, cls).toBeGreaterThan(0);
  });

  it("refuses a row that lacks its sha256 or names no commit", () => {
    const header = COLUMNS.join("\t");
    const row = ["owner/repo", "a".repeat(40), "img/x.png", "b".repeat(64), "10", "png", "c2pa_generator", "ai", "group", "says"];
    expect(parseManifest(`${header}\n${row.join("\t")}\n`)).toHaveLength(1);
    expect(() => parseManifest(`${header}\n${row.with(3, "").join("\t")}\n`)).toThrow(/sha256/);
    expect(() => parseManifest(`${header}\n${row.with(1, "HEAD").join("\t")}\n`)).toThrow(/commit/);
    expect(() => parseManifest(`${header}\n${row.with(0, "").join("\t")}\n`)).toThrow(/repository/);
    expect(() => parseManifest(`${header}\n${row.with(2, "../x.png").join("\t")}\n`)).toThrow(/path/);
    expect(() => parseManifest(`${header}\n${row.slice(0, 9).join("\t")}\n`)).toThrow(/fields/);
  });
});
