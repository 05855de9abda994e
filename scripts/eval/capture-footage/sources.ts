/**
 * Hand-held (and some fixed-camera) footage that nobody here filmed, for measuring the capture-burst
 * rules: manifest.tsv lists every clip with its source (a Debian or npm package at a version, or a
 * public repository at a commit), its sha256, a category judged by eye and a train/test split made by
 * source, never by clip. README.md beside this file says what is in it and why; build.ts rebuilds
 * the files into the gitignored .cache/capture-footage/.
 *
 * A path whose last part holds `*` (`folder/*.pgm`) is an image sequence: the files of that folder
 * matching the pattern, in name order; its sha256 and bytes are those of the files concatenated.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { mirrorDir } from "../screen-data/sources";

export type Category = "flat" | "scene3d" | "distant" | "display" | "static";
/** `mounted`: the camera moves, but on a robot or a car, not in a hand. */
export type Camera = "hand-held" | "static" | "mounted";
export type Split = "train" | "test";

export interface Clip {
  name: string;
  kind: "debian" | "npm" | "github";
  /** `package=version` for Debian, `package@version` for npm, `owner/repo` for GitHub. */
  source: string;
  /** The commit for GitHub, `-` for a package. */
  commit: string;
  path: string;
  sha256: string;
  bytes: number;
  category: Category;
  camera: Camera;
  split: Split;
  licence: string;
  description: string;
  /** `WxH` of the stored frames. */
  resolution: string;
  /** Frames per second (assumed for image sequences that state none: see the description). */
  fps: number;
  seconds: number;
}

export const ROOT = path.resolve(import.meta.dirname, "../../..");
export const CACHE = path.join(ROOT, ".cache", "capture-footage");
export const MANIFEST = path.join(import.meta.dirname, "manifest.tsv");

const COLUMNS = ["name", "kind", "source", "commit", "path", "sha256", "bytes", "category", "camera", "split", "licence", "description", "resolution", "fps", "seconds"];
const CATEGORIES: readonly string[] = ["flat", "scene3d", "distant", "display", "static"] satisfies Category[];
const CAMERAS: readonly string[] = ["hand-held", "static", "mounted"] satisfies Camera[];

export function parseManifest(text: string): Clip[] {
  const [header, ...lines] = text.split("\n").filter(Boolean);
  if (header !== COLUMNS.join("\t")) throw new Error(`unexpected manifest header: ${header}`);
  return lines.map((line) => {
    const f = line.split("\t");
    if (f.length !== COLUMNS.length) throw new Error(`expected ${COLUMNS.length} columns: ${line}`);
    const [name, kind, source, commit, file, sha256, bytes, category, camera, split, licence, description, resolution, fps, seconds] = f as [string, ...string[]];
    if (kind !== "debian" && kind !== "npm" && kind !== "github") throw new Error(`unknown kind ${kind} in ${name}`);
    if (!CATEGORIES.includes(category!)) throw new Error(`unknown category ${category} in ${name}`);
    if (!CAMERAS.includes(camera!)) throw new Error(`unknown camera ${camera} in ${name}`);
    if (split !== "train" && split !== "test") throw new Error(`unknown split ${split} in ${name}`);
    return {
      name, kind: kind as Clip["kind"], source: source!, commit: commit!, path: file!, sha256: sha256!, bytes: Number(bytes),
      category: category as Category, camera: camera as Camera, split, licence: licence!, description: description!,
      resolution: resolution!, fps: Number(fps), seconds: Number(seconds),
    };
  });
}

export function readManifest(file: string = MANIFEST): Clip[] {
  return parseManifest(readFileSync(file, "utf8"));
}

/** Whether the clip is an image sequence (`folder/*.ext`), and its folder and file pattern. */
export function sequence(clip: Clip): { folder: string; pattern: RegExp } | null {
  const base = path.posix.basename(clip.path);
  if (!base.includes("*")) return null;
  const pattern = new RegExp(`^${base.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return { folder: path.posix.dirname(clip.path), pattern };
}

/** Where build.ts puts a clip: a file `<name><ext>`, or a folder `<name>/` of frames. */
export function cachePath(clip: Clip): string {
  if (sequence(clip)) return path.join(CACHE, clip.name);
  return path.join(CACHE, clip.name + path.extname(clip.path.replace(/\.gz$/, "")).toLowerCase());
}

/**
 * The bare git directory of a fetched snapshot (the search tool's `fetch`), as screen-data uses;
 * some snapshots arrive as `repo/.git`. CAPTURE_FOOTAGE_MIRROR overrides /work/.mirror.
 */
export function snapshotDir(repo: string): string {
  const dir = process.env.CAPTURE_FOOTAGE_MIRROR ? `${process.env.CAPTURE_FOOTAGE_MIRROR}/${repo.replace("/", "+")}/repo` : mirrorDir(repo);
  return existsSync(path.join(dir, ".git")) ? path.join(dir, ".git") : dir;
}
