/**
 * Per-tile diagnostics of the screen detector on the real-recapture set, one line per image:
 * class, source, file, then for each of its nine tiles
 * `peak_ratio/grid_ratio/period_px/texture/weight/symmetry/depth_variation` ("-" where the detector
 * did not measure it). What docs/signals.md says about where real recaptures are lost was read from
 * this output (train sources only).
 *
 *   npx tsx scripts/eval/screen-real-tiles.ts train > tiles.tsv
 */
import { measureMoire } from "../../src/analysis/signals/screen-moire";
import { buildScreenData } from "./screen-data/build";
import { readManifest } from "./screen-data/files";
import type { Split } from "./screen-data/sources";
import { decodeEntry } from "./screen-real";

const split = (process.argv[2] ?? "train") as Split;
const { ready } = buildScreenData(readManifest().filter((e) => e.split === split));
for (const entry of ready) {
  const m = measureMoire((await decodeEntry(entry)).tiles);
  const tiles = (m?.tiles ?? []).map((t) => [t.peak_ratio.toFixed(1), t.grid_ratio.toFixed(1), t.period_px ?? "-", t.texture ?? "-", t.weight.toFixed(2), t.symmetry?.toFixed(2) ?? "-", t.depth_variation?.toFixed(2) ?? "-"].join("/"));
  console.log([entry.cls, entry.repo, entry.path, tiles.join(" ")].join("\t"));
}
