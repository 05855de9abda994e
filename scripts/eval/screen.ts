import { decodeImage } from "../../src/analysis/decoders";
import { detectScreen, screenTileRects } from "../../src/analysis/signals/screen-moire";
import type { Photo } from "./photos";
import { PITCHES, screenCases, type Group, type ScreenCase } from "./screen-cases";
import type { Row } from "./stats";

/*
 * screen_detection on the labelled cases of scripts/eval/screen-cases.ts: real photographs
 * (negatives), the same photographs under a frame-filling periodic texture (hard negatives) and the
 * same photographs shown on a simulated display and photographed again (positives). Only the `test`
 * half is counted here; the detector's rules were chosen on the `train` half.
 */

const SUMMARY: Record<Group, string> = {
  real: "real photographs (held-out half)",
  "texture-coarse": "hard textures: stripes at any period, 2-D textures repeating every ≥ 8 px",
  "texture-fine": "hard textures: 2-D textures repeating every < 8 px (a display's range)",
  recapture: "recaptures: photo shown on a display, photographed (all conditions)",
};

async function flagged(c: ScreenCase): Promise<boolean> {
  return detectScreen(await decodeImage(await c.bytes(), c.mediaType, { tiles: screenTileRects }), null).screen_detected;
}

/** Fraction of a display's fundamental that survives a Gaussian lens blur (its MTF at 1/pitch). */
function lensContrast(pitch: number, blurSigma: number): number {
  return Math.exp(-2 * Math.PI ** 2 * blurSigma ** 2 * (1 / pitch) ** 2);
}

export async function evaluateScreen(photos: Photo[], record: (row: Row) => void): Promise<void> {
  const signal = "screen_detection";
  const cases = screenCases(photos).filter((c) => c.split === "test");
  const outcomes = new Map<ScreenCase, boolean>();
  for (const c of cases) outcomes.set(c, await flagged(c));
  const count = (xs: ScreenCase[]) => ({ n: xs.length, flagged: xs.filter((c) => outcomes.get(c)).length });

  // One row per case kind, in the order the cases were made.
  const negatives = cases.filter((c) => !c.positive);
  for (const group of ["real", "texture-coarse", "texture-fine"] as const) {
    const rows = [...new Set(negatives.filter((c) => c.group === group).map((c) => c.row))].sort();
    for (const row of rows) record({ signal, case: row, positive: false, ...count(negatives.filter((c) => c.group === group && c.row === row)), summary: SUMMARY[group] });
  }

  const shots = cases.filter((c) => c.positive);
  for (const pitch of PITCHES) {
    const xs = shots.filter((c) => c.conditions!.pitch === pitch);
    record({ signal, case: `recapture, display pixel = ${pitch} camera px${pitch < 2 ? " (finer than the sensor: aliased)" : ""}`, positive: true, ...count(xs), summary: SUMMARY.recapture });
  }
  const breakdowns: Array<[string, (c: ScreenCase) => string]> = [
    ["lens blur σ", (c) => `${c.conditions!.blur} px`],
    ["lattice contrast after the lens", (c) => (lensContrast(c.conditions!.pitch, c.conditions!.blur) >= 0.1 ? "≥ 10 % (the grid reaches the sensor)" : "< 10 % (blurred away before the sensor)")],
    ["sub-pixel layout", (c) => c.conditions!.layout],
    ["angle", (c) => (c.conditions!.angle <= 6 ? "0–6°" : "12–40°")],
    ["after capture", (c) => (c.conditions!.rescale === 1 ? "kept at capture size" : "resampled to 75 %")],
  ];
  for (const [name, key] of breakdowns) {
    const keys = [...new Set(shots.map(key))].sort();
    for (const k of keys) record({ signal, case: `recapture by ${name}: ${k}`, positive: true, ...count(shots.filter((c) => key(c) === k)), summary: `recaptures by ${name} (same shots)` });
  }
}
