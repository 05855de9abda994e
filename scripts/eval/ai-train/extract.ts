/**
 * The grid-spectrum features (./grid-spectrum.ts) for every image of
 * the labelled set (scripts/eval/ai-data/: manifest.tsv, rebuilt into .cache/ai-data/ by build.ts),
 * each as it is and as a photo's life changes it: re-encoded as JPEG (quality 75–95), resized
 * (50–90 %), both. Variants are made by ImageMagick (libjpeg, 4:2:0, as phones and browsers encode)
 * and decoded by the service's own decoders, so a vector here is the one the Worker would compute.
 * Validation and test images get every variant (the threshold and the published rates cover them);
 * training images their original and one other, picked by their hash (half the decoding).
 *
 *   npx tsx scripts/eval/ai-train/extract.ts [--data .cache/ai-data] [--out .cache/ai-train/grid.jsonl]
 *
 * Cached by the image's SHA-256 and the variant: a re-run computes only what is new.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { decodeImage } from "../../../src/analysis/decoders";
import { GRID_FEATURE_NAMES, gridSpectrumFeatures } from "./grid-spectrum";
import { screenTileRects } from "../../../src/analysis/signals/screen-moire";
import { sniffMediaType } from "../../../src/model/evidence/media-type";
import { loadManifest, type Entry } from "./manifest";

const ROOT = resolve(import.meta.dirname, "../../..");
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const DATA = resolve(ROOT, arg("--data", ".cache/ai-data"));
const OUT = resolve(ROOT, arg("--out", ".cache/ai-train/grid.jsonl"));

/** What a photo's life does to it. */
export interface Variant {
  name: string;
  jpegQuality?: number;
  scale?: number;
}

/** Every variant of an image, deterministic per image (its hash picks the quality and the scale). */
export function variantsOf(sha256: string): Variant[] {
  const pick = (offset: number, options: number[]) => options[parseInt(sha256.slice(offset, offset + 4), 16) % options.length]!;
  const quality = pick(0, [75, 80, 85, 90, 95]);
  const scale = pick(4, [0.5, 0.6, 0.7, 0.8, 0.9]);
  const quality2 = pick(8, [75, 80, 85, 90, 95]);
  const scale2 = pick(12, [0.5, 0.6, 0.7, 0.8, 0.9]);
  return [
    { name: "original" },
    { name: `jpeg${quality}`, jpegQuality: quality },
    { name: `resize${Math.round(scale * 100)}`, scale },
    { name: `resize${Math.round(scale2 * 100)}+jpeg${quality2}`, scale: scale2, jpegQuality: quality2 },
  ];
}

/** The variants an entry is measured under: every one outside training, two in it. */
export function variantsFor(entry: Entry, sha256: string): Variant[] {
  const all = variantsOf(sha256);
  if (entry.split !== "train") return all;
  return [all[0]!, all[1 + (parseInt(sha256.slice(16, 20), 16) % 3)]!];
}

/** The bytes of `variant` of the image at `path` (ImageMagick for anything but the original). */
export function variantBytes(path: string, variant: Variant, work: string): { bytes: Uint8Array; mediaType: string } {
  if (!variant.jpegQuality && !variant.scale) {
    const bytes = new Uint8Array(readFileSync(path));
    // Some sources name a PNG `.jpg`: the type is what the bytes are, as the capture API sniffs it.
    return { bytes, mediaType: sniffMediaType(bytes) ?? "application/octet-stream" };
  }
  const out = join(work, `v.${variant.jpegQuality ? "jpg" : "png"}`);
  const args = [`${path}[0]`, "-auto-orient", "-alpha", "off"];
  if (variant.scale) args.push("-resize", `${variant.scale * 100}%`);
  if (variant.jpegQuality) args.push("-sampling-factor", "2x2", "-quality", String(variant.jpegQuality));
  execFileSync("convert", [...args, out], { stdio: ["ignore", "ignore", "pipe"] });
  return { bytes: new Uint8Array(readFileSync(out)), mediaType: variant.jpegQuality ? "image/jpeg" : "image/png" };
}

/** The detector's features of some bytes, decoded as the analysis Worker decodes them (null: no tile to read). */
export async function featuresOf(bytes: Uint8Array, mediaType: string): Promise<{ width: number; height: number; features: number[] | null }> {
  const image = await decodeImage(bytes, mediaType, { tiles: screenTileRects });
  const features = gridSpectrumFeatures(image.tiles);
  return { width: image.width, height: image.height, features: features ? [...features] : null };
}

export interface FeatureRow {
  sha256: string;
  variant: string;
  path: string;
  class: Entry["class"];
  source: string;
  generator: string;
  family: string;
  split: Entry["split"];
  tags: string;
  width: number;
  height: number;
  features: number[];
}

async function main(): Promise<void> {
  // Validation and test first (the threshold and the figures need them whole), then training.
  const rank = (e: Entry) => ({ val: 0, test: 1, train: 2 })[e.split];
  const order = (e: Entry) => `${rank(e)}${createHash("sha1").update(e.file).digest("hex")}`;
  const entries = loadManifest(DATA).sort((a, b) => order(a).localeCompare(order(b)));
  mkdirSync(dirname(OUT), { recursive: true });
  const done = new Set<string>();
  if (existsSync(OUT)) {
    const [header, ...lines] = readFileSync(OUT, "utf8").split("\n");
    if (header && JSON.parse(header).features?.join() !== GRID_FEATURE_NAMES.join()) {
      console.error("feature set changed: starting over");
      writeFileSync(OUT, "");
    } else {
      for (const line of lines) if (line) done.add(((r: FeatureRow) => `${r.sha256}/${r.variant}`)(JSON.parse(line)));
    }
  }
  if (!existsSync(OUT) || readFileSync(OUT, "utf8").length === 0) writeFileSync(OUT, `${JSON.stringify({ features: GRID_FEATURE_NAMES })}\n`);
  const work = mkdtempSync(join(tmpdir(), "ai-train-"));
  let made = 0;
  let failed = 0;
  try {
    for (const [i, entry] of entries.entries()) {
      if (!existsSync(entry.file)) continue;
      const sha256 = createHash("sha256").update(readFileSync(entry.file)).digest("hex");
      for (const variant of variantsFor(entry, sha256)) {
        if (done.has(`${sha256}/${variant.name}`)) continue;
        try {
          const v = variantBytes(entry.file, variant, work);
          const { width, height, features } = await featuresOf(v.bytes, v.mediaType);
          if (!features) continue;
          const row: FeatureRow = { sha256, variant: variant.name, path: basename(entry.file), class: entry.class, source: entry.source, generator: entry.generator, family: entry.family, split: entry.split, tags: entry.tags, width, height, features };
          appendFileSync(OUT, `${JSON.stringify(row)}\n`);
          made += 1;
        } catch (err) {
          failed += 1;
          console.error(`${entry.file} ${variant.name}: ${String(err).slice(0, 200)}`);
        }
      }
      if ((i + 1) % 50 === 0) console.error(`${i + 1}/${entries.length} images, ${made} new vectors, ${failed} failed`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.error(`done: ${made} new vectors, ${failed} failed, in ${OUT}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
