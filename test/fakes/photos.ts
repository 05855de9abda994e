import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { C2PA_FILES, c2paFileRows } from "../../scripts/c2pa-files/fill";
import { prepared } from "../../scripts/real-photos";
import type { FakeHandler } from "./server";

const SAMPLES = resolve(import.meta.dirname, "../fixtures/photos");

/**
 * Real photographs for tests inside workerd (which has no file system): `/photos/sample/<name>` is
 * a committed sample (test/fixtures/photos), `/photos/prepared/<name>` a large input made from a
 * Debian package's photo on first request (scripts/real-photos.ts, cached in .cache/photos),
 * `/photos/c2pa/<name>` a public C2PA file (npm run c2pa-files fills .cache/c2pa-files; 404 when absent).
 */
export const photos: FakeHandler = (req) => {
  const [, kind, name] = req.path.split("/");
  if (!name || name.includes("..")) return { status: 404, body: "no such photo" };
  if (kind === "sample") {
    const path = join(SAMPLES, name);
    return existsSync(path) ? { status: 200, headers: { "content-type": "application/octet-stream" }, body: readFileSync(path) } : { status: 404, body: "no such sample" };
  }
  if (kind === "c2pa") {
    if (name === "manifest.json") return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(c2paFileRows()) };
    const path = join(C2PA_FILES, name);
    return existsSync(path) ? { status: 200, headers: { "content-type": "application/octet-stream" }, body: readFileSync(path) } : { status: 404, body: "not in .cache/c2pa-files: npm run c2pa-files" };
  }
  if (kind === "prepared") return { status: 200, headers: { "content-type": "application/octet-stream" }, body: readFileSync(prepared(name)) };
  return { status: 404, body: "no such photo" };
};
