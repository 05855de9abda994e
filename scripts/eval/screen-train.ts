/**
 * How the screen detector's rules were chosen: on the `train` half only
 * (scripts/eval/screen-cases.ts). Rows: the grid decision of screen-moire/3 (tiles agreeing on one
 * period hold more than half of the tiles, every tile weighing the same), the same cleared by a
 * square-symmetric lattice alone, then by a square-symmetric lattice of uniform modulation depth
 * (screen-moire/4), then with every tile's vote weighted by how calm its scene is (screen-moire/5:
 * more than half of the weight), then weighted and cleared by a square-symmetric lattice alone
 * (screen-moire/6, chosen on the real recaptures' train sources: scripts/eval/screen-real.ts).
 * docs/signals.md quotes it.
 *
 *   npx tsx scripts/eval/screen-train.ts
 */
import { decodeImage } from "../../src/analysis/decoders";
import { measureMoire, screenTileRects, SYMMETRIC_LATTICE, UNIFORM_DEPTH_VARIATION, type MoireMeasurement } from "../../src/analysis/signals/screen-moire";
import { loadPhotos } from "./photos";
import { screenCases, type Group } from "./screen-cases";

const equalWeights = (m: MoireMeasurement) => m.tiles_over * 2 > m.tiles.length;
const weighted = (m: MoireMeasurement) => m.weight_over > 0.5;
const symmetric = (m: MoireMeasurement) => m.symmetry !== null && m.symmetry >= SYMMETRIC_LATTICE;
const uniformSymmetric = (m: MoireMeasurement) => symmetric(m) && m.depth_variation !== null && m.depth_variation <= UNIFORM_DEPTH_VARIATION;
const rules: Record<string, (m: MoireMeasurement) => boolean> = {
  "grid (screen-moire/3)": equalWeights,
  "cleared when symmetric": (m) => equalWeights(m) && !symmetric(m),
  "cleared when symmetric and of uniform depth (/4)": (m) => equalWeights(m) && !uniformSymmetric(m),
  "the same, tiles weighted by a calm scene (/5)": (m) => weighted(m) && !uniformSymmetric(m),
  "tiles weighted, cleared when symmetric (/6)": (m) => weighted(m) && !symmetric(m),
};
const counts = new Map<string, number>();
const totals = new Map<Group, number>();
for (const c of screenCases(loadPhotos()).filter((c) => c.split === "train")) {
  totals.set(c.group, (totals.get(c.group) ?? 0) + 1);
  const image = await decodeImage(await c.bytes(), c.mediaType, { tiles: screenTileRects });
  const m = image ? measureMoire(image.tiles) : null;
  if (!m) continue;
  for (const [name, flags] of Object.entries(rules)) if (flags(m)) counts.set(`${name}|${c.group}`, (counts.get(`${name}|${c.group}`) ?? 0) + 1);
}
console.log(`| train half | ${[...totals.keys()].join(" | ")} |`);
for (const name of Object.keys(rules)) console.log(`| ${name} | ${[...totals].map(([g, n]) => `${counts.get(`${name}|${g}`) ?? 0}/${n}`).join(" | ")} |`);
