/**
 * The capture benchmarks' image: a real photograph from a Debian package (scripts/real-photos.ts),
 * resized to 2560×1440 and saved as a ~1.5 MB JPEG, cached in .cache/photos (never committed).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CACHE, debianPhoto, SOURCES } from "../../scripts/real-photos";

export function benchPhoto(): { path: string; bytes: Uint8Array } {
  const path = join(CACHE, "bench-capture-2560x1440.jpg");
  if (!existsSync(path)) {
    mkdirSync(CACHE, { recursive: true });
    execFileSync("convert", [debianPhoto(SOURCES.elephants), "-resize", "2560x1440!", "-quality", "87", `jpeg:${path}`]);
  }
  return { path, bytes: new Uint8Array(readFileSync(path)) };
}
