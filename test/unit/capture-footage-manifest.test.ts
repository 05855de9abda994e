import { describe, expect, it } from "vitest";
import manifestText from "../../scripts/eval/capture-footage/manifest.tsv?raw";
import { parseManifest } from "../../scripts/eval/capture-footage/sources";

// The footage the capture-burst rules are measured on (scripts/eval/capture-footage/) is split by
// source: a source whose clips reached both halves would let the held-out figures measure footage
// the thresholds were chosen on.
describe("the capture-footage manifest", () => {
  const clips = parseManifest(manifestText);

  it("puts every source in one split", () => {
    const splits = new Map<string, Set<string>>();
    for (const clip of clips) splits.set(clip.source, (splits.get(clip.source) ?? new Set()).add(clip.split));
    for (const [source, split] of splits) expect([...split], source).toHaveLength(1);
  });

  it("names each clip once and holds each file once, by content", () => {
    expect(new Set(clips.map((c) => c.name)).size).toBe(clips.length);
    expect(new Set(clips.map((c) => c.sha256)).size).toBe(clips.length);
    for (const clip of clips) expect(clip.sha256, clip.name).toMatch(/^[0-9a-f]{64}$/);
  });

  it("pins every source: a package at a version, a repository at a commit", () => {
    for (const clip of clips) {
      if (clip.kind === "debian") expect(clip.source, clip.name).toMatch(/^[a-z0-9.+-]+=[^=\s]+$/);
      if (clip.kind === "npm") expect(clip.source, clip.name).toMatch(/^(@[a-z0-9._-]+\/)?[a-z0-9._-]+@\d+\.\d+\.\d+$/);
      if (clip.kind === "github") expect(clip.commit, clip.name).toMatch(/^[0-9a-f]{40}$/);
      else expect(clip.commit, clip.name).toBe("-");
    }
  });

  it("refuses a kind it cannot fetch", () => {
    const [header, row] = manifestText.split("\n");
    expect(() => parseManifest(`${header}\n${row!.replace("\tdebian\t", "\tpypi\t")}\n`)).toThrow(/unknown kind pypi/);
  });
});
