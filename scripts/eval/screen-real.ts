import { decodeImage, type DecodedImage } from "../../src/analysis/decoders";
import { detectScreen, screenTileRects } from "../../src/analysis/signals/screen-moire";
import { buildScreenData } from "./screen-data/build";
import { cachePath, readManifest } from "./screen-data/files";
import type { Entry } from "./screen-data/manifest";
import type { Split } from "./screen-data/sources";
import { readFileSync } from "node:fs";
import { rate, type Row } from "./stats";

/*
 * screen_detection on real recaptures: camera photos of displays published by public repositories
 * (scripts/eval/screen-data/), and the same repositories' camera photos of real scenes. Each source
 * repository belongs to one split; rules are chosen on `train`, figures published from `test`.
 */

export function mediaTypeOf(bytes: Uint8Array): "image/png" | "image/jpeg" {
  return bytes[0] === 0x89 && bytes[1] === 0x50 ? "image/png" : "image/jpeg";
}

/** The decode the analysis Worker does for the screen detector (tiles and the evidence thumbnail). */
export async function decodeEntry(e: Entry): Promise<DecodedImage> {
  const bytes = new Uint8Array(readFileSync(cachePath(e)));
  return decodeImage(bytes, mediaTypeOf(bytes), { tiles: screenTileRects, thumbnailMaxSide: 480 });
}

export interface Outcome {
  entry: Entry;
  detected: boolean;
}

export async function runRealScreens(split: Split): Promise<{ outcomes: Outcome[]; missingRepos: string[] }> {
  const { ready, missingRepos } = buildScreenData(readManifest().filter((e) => e.split === split));
  if (missingRepos.length > 0) console.warn(`screen-data: not fetched, left out: ${missingRepos.join(", ")}`);
  const outcomes: Outcome[] = [];
  for (const entry of ready) outcomes.push({ entry, detected: detectScreen(await decodeEntry(entry), null).screen_detected });
  return { outcomes, missingRepos };
}

/** The published rows: the held-out (test) sources only. */
export async function evaluateRealScreens(record: (row: Row) => void): Promise<{ missingRepos: string[] }> {
  const { outcomes, missingRepos } = await runRealScreens("test");
  for (const row of realScreenRows(outcomes, "test")) record(row);
  return { missingRepos };
}

/** Rows per source repository and class (recaptures should flag, real photographs not). */
export function realScreenRows(outcomes: Outcome[], split: Split): Row[] {
  const rows: Row[] = [];
  for (const cls of ["recapture", "real"] as const) {
    const of = outcomes.filter((o) => o.entry.cls === cls);
    for (const repo of [...new Set(of.map((o) => o.entry.repo))].sort()) {
      const xs = of.filter((o) => o.entry.repo === repo);
      rows.push({
        signal: "screen_detection",
        case: `${cls === "recapture" ? "real recapture (camera photo of a display)" : "real photograph of a scene"}, ${split} source ${repo}`,
        positive: cls === "recapture",
        n: xs.length,
        flagged: xs.filter((o) => o.detected).length,
        summary: cls === "recapture" ? `real recaptures, ${split} sources` : `real photographs of the recapture sources, ${split} sources`,
      });
    }
  }
  return rows;
}

if (process.argv[1]?.endsWith("screen-real.ts")) {
  const split = (process.argv[2] ?? "train") as Split;
  const { outcomes } = await runRealScreens(split);
  for (const row of realScreenRows(outcomes, split)) console.log(`${row.case}: ${row.flagged}/${row.n} ${rate(row.flagged, row.n)}`);
  for (const cls of ["recapture", "real"]) {
    const xs = outcomes.filter((o) => o.entry.cls === cls);
    const k = xs.filter((o) => o.detected).length;
    console.log(`${cls} overall: ${k}/${xs.length} ${rate(k, xs.length)}`);
  }
}
