import { describe, expect, it } from "vitest";
import manifestText from "../../scripts/eval/screen-data/manifest.tsv?raw";
import { formatManifest, parseManifest } from "../../scripts/eval/screen-data/manifest";
import { SOURCES } from "../../scripts/eval/screen-data/sources";

// The real-recapture set (scripts/eval/screen-data/) is split by source repository: a repository
// whose images reached both halves would let the test split measure what the rules were tuned on.
describe("the real-recapture manifest", () => {
  const entries = parseManifest(manifestText);

  it("reads back what it writes", () => {
    expect(parseManifest(formatManifest(entries))).toEqual(entries);
  });

  it("puts every repository in the one split and at the one commit sources.ts names", () => {
    for (const source of SOURCES) {
      const of = entries.filter((e) => e.repo === source.repo);
      expect(of.length, source.repo).toBeGreaterThan(0);
      expect(new Set(of.map((e) => e.split)), source.repo).toEqual(new Set([source.split]));
      expect(new Set(of.map((e) => e.commit)), source.repo).toEqual(new Set([source.commit]));
    }
    expect(new Set(entries.map((e) => e.repo))).toEqual(new Set(SOURCES.map((s) => s.repo)));
  });

  it("holds each image once, by content", () => {
    expect(new Set(entries.map((e) => e.sha256)).size).toBe(entries.length);
  });

  it("has recaptures from several sources on both sides of the split", () => {
    for (const split of ["train", "test"] as const) {
      const recaptures = entries.filter((e) => e.split === split && e.cls === "recapture");
      expect(recaptures.length, split).toBeGreaterThanOrEqual(150);
      expect(new Set(recaptures.map((e) => e.repo)).size, split).toBeGreaterThanOrEqual(4);
    }
  });
});
