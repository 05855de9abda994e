/**
 * How the screen detector's screen-moire/4 thresholds were chosen: on the `train` half only
 * (scripts/eval/screen-cases.ts), the grid decision of screen-moire/3 (at least half the tiles agree
 * and the median ratio passes), then the same cleared by a square-symmetric lattice alone, then by
 * a square-symmetric lattice of uniform modulation depth (what /4 ships). docs/signals.md quotes it.
 *
 *   npx tsx scripts/eval/screen-train.ts
 */
import { decodeImage } from "../../src/analysis/pixels";
import { GRID_RATIO_THRESHOLD, measureMoire, screenTileRects, SYMMETRIC_LATTICE, UNIFORM_DEPTH_VARIATION } from "../../src/analysis/signals/screen-moire";
import { loadPhotos } from "./photos";
import { screenCases, type Group } from "./screen-cases";

const rules = {
  "grid (screen-moire/3)": () => false,
  "cleared when symmetric": (sym: number) => sym >= SYMMETRIC_LATTICE,
  "cleared when symmetric and of uniform depth (/4)": (sym: number, depth: number) => sym >= SYMMETRIC_LATTICE && depth <= UNIFORM_DEPTH_VARIATION,
};
const counts = new Map<string, number>();
const totals = new Map<Group, number>();
for (const c of screenCases(loadPhotos()).filter((c) => c.split === "train")) {
  totals.set(c.group, (totals.get(c.group) ?? 0) + 1);
  const image = await decodeImage(await c.bytes(), c.mediaType, { tiles: screenTileRects });
  const m = image ? measureMoire(image.tiles) : null;
  if (!m || m.tiles_over * 2 < m.tiles.length || m.strength < GRID_RATIO_THRESHOLD) continue;
  for (const [name, cleared] of Object.entries(rules)) {
    if (m.symmetry !== null && m.depth_variation !== null && cleared(m.symmetry, m.depth_variation)) continue;
    counts.set(`${name}|${c.group}`, (counts.get(`${name}|${c.group}`) ?? 0) + 1);
  }
}
console.log(`| train half | ${[...totals.keys()].join(" | ")} |`);
for (const name of Object.keys(rules)) console.log(`| ${name} | ${[...totals].map(([g, n]) => `${counts.get(`${name}|${g}`) ?? 0}/${n}`).join(" | ")} |`);
