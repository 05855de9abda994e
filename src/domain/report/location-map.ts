import { rgb, type PDFPage } from "pdf-lib";
import type { Fonts } from "./page-flow";

/*
 * The location check drawn from its coordinates alone (no map tiles, no third party): the expected
 * point with its tolerance circle, the observed fix, the line between them with its distance, a
 * scale bar and north. Positions are an equirectangular projection around the points' midpoint,
 * exact enough at the scale of a claim (metres to a few kilometres).
 */

export interface Point {
  lat: number;
  lng: number;
}

export interface MapInput {
  expected: Point | null;
  observed: Point | null;
  toleranceM: number | null;
  distanceM: number | null;
}

const EARTH_RADIUS_M = 6_371_000;
const EXPECTED = rgb(0.13, 0.39, 0.75);
const OBSERVED = rgb(0.8, 0.25, 0.13);
const FRAME = rgb(0.75, 0.75, 0.8);
const GRID = rgb(0.92, 0.92, 0.94);

/** Metres east and north of `origin`. */
export function offsetMetres(origin: Point, p: Point): { x: number; y: number } {
  const rad = Math.PI / 180;
  return {
    x: (p.lng - origin.lng) * rad * EARTH_RADIUS_M * Math.cos(origin.lat * rad),
    y: (p.lat - origin.lat) * rad * EARTH_RADIUS_M,
  };
}

/** A round length (1, 2 or 5 × 10^n metres) near a quarter of `span`. */
export function scaleBarMetres(span: number): number {
  const target = Math.max(span / 4, 1);
  const power = 10 ** Math.floor(Math.log10(target));
  return [5, 2, 1].map((m) => m * power).find((m) => m <= target) ?? power;
}

const metres = (m: number) => (m >= 1000 ? `${(m / 1000).toFixed(m >= 10_000 ? 0 : 1)} km` : `${Math.round(m)} m`);

export function drawLocationMap(page: PDFPage, fonts: Fonts, box: { x: number; y: number; width: number; height: number }, input: MapInput): void {
  const points = [input.expected, input.observed].filter((p): p is Point => p !== null);
  page.drawRectangle({ ...box, color: rgb(0.98, 0.98, 0.99), borderColor: FRAME, borderWidth: 0.6 });
  if (points.length === 0) return;
  const origin = { lat: points.reduce((s, p) => s + p.lat, 0) / points.length, lng: points.reduce((s, p) => s + p.lng, 0) / points.length };
  const tolerance = input.toleranceM ?? 0;
  // Half the span the frame shows: every point, the whole tolerance circle around the expected one, and at least 100 m.
  const reach = (p: Point, radius: number) => {
    const o = offsetMetres(origin, p);
    return Math.max(Math.abs(o.x), Math.abs(o.y)) + radius;
  };
  const half = Math.max(100, ...(input.expected ? [reach(input.expected, tolerance)] : []), ...(input.observed ? [reach(input.observed, 0)] : [])) * 1.15;
  const scale = (Math.min(box.width, box.height) / 2 - 10) / half;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const at = (o: { x: number; y: number }) => ({ x: cx + o.x * scale, y: cy + o.y * scale });

  for (let i = 1; i < 4; i++) {
    page.drawLine({ start: { x: box.x + (box.width * i) / 4, y: box.y }, end: { x: box.x + (box.width * i) / 4, y: box.y + box.height }, thickness: 0.4, color: GRID });
    page.drawLine({ start: { x: box.x, y: box.y + (box.height * i) / 4 }, end: { x: box.x + box.width, y: box.y + (box.height * i) / 4 }, thickness: 0.4, color: GRID });
  }
  const expected = input.expected ? at(offsetMetres(origin, input.expected)) : null;
  const observed = input.observed ? at(offsetMetres(origin, input.observed)) : null;
  if (expected && tolerance > 0) page.drawCircle({ ...expected, size: tolerance * scale, borderColor: EXPECTED, borderWidth: 0.8, color: EXPECTED, opacity: 0.08, borderOpacity: 0.9 });
  if (expected && observed) {
    page.drawLine({ start: expected, end: observed, thickness: 0.8, color: MUTED_LINE, dashArray: [3, 2] });
    if (input.distanceM !== null) {
      const label = metres(input.distanceM);
      const mid = { x: (expected.x + observed.x) / 2 + 4, y: (expected.y + observed.y) / 2 + 4 };
      page.drawText(label, { x: Math.min(mid.x, box.x + box.width - fonts.regular.widthOfTextAtSize(label, 7) - 4), y: mid.y, size: 7, font: fonts.regular, color: MUTED_LINE });
    }
  }
  if (expected) page.drawRectangle({ x: expected.x - 3.5, y: expected.y - 3.5, width: 7, height: 7, color: EXPECTED });
  if (observed) page.drawCircle({ ...observed, size: 3.5, color: OBSERVED });

  const bar = scaleBarMetres(half * 2);
  const barLength = bar * scale;
  const bx = box.x + 8;
  const by = box.y + 8;
  page.drawLine({ start: { x: bx, y: by }, end: { x: bx + barLength, y: by }, thickness: 1.2, color: MUTED_LINE });
  page.drawText(metres(bar), { x: bx, y: by + 4, size: 6.5, font: fonts.regular, color: MUTED_LINE });
  page.drawText("N ↑", { x: box.x + box.width - 20, y: box.y + box.height - 12, size: 7.5, font: fonts.bold, color: MUTED_LINE });
}

const MUTED_LINE = rgb(0.3, 0.3, 0.34);

/** The legend's entries, for the text beside the map. */
export const MAP_LEGEND = { expected: "square: the expected address; shaded circle: the tolerance", observed: "dot: the location of the capture" };
