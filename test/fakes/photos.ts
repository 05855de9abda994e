import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { C2PA_FILES, c2paFileRows } from "../../scripts/c2pa-files/fill";
import { INPUTS, preparedPath } from "../../scripts/real-photos";
import type { FakeHandler } from "./server";

const SAMPLES = resolve(import.meta.dirname, "../fixtures/photos");
const REAL_PHOTOS = resolve(import.meta.dirname, "../../scripts/real-photos.ts");
const run = promisify(execFile);

/**
 * Makes a prepared input in a child process at nice 10 (ImageMagick takes every core it can, and the
 * runtimes under test should not wait on it), the fakes answering every other request meanwhile.
 * Made in this process, its minutes of ImageMagick and heif-enc on a clean checkout held every fake
 * (webhook receivers, DNS, attestation) and Vitest's coordination, and the files running then timed
 * out. Inputs are made side by side, so a small one never waits for a 50 MP one; the Debian package
 * they are all made from is unpacked once, first.
 */
const makeInChild = (args: string[]) => run("nice", ["-n", "10", process.execPath, "--import", "tsx", REAL_PHOTOS, ...args], { maxBuffer: 1 << 20 });
let unpacked: Promise<unknown> | undefined;
const made = new Map<string, Promise<Buffer>>();
function preparedBytes(name: string): Promise<Buffer> {
  const path = preparedPath(name);
  if (existsSync(path)) return readFile(path);
  let bytes = made.get(name);
  if (!bytes) {
    unpacked ??= makeInChild(["--unpack"]).catch((error: unknown) => {
      unpacked = undefined;
      throw error;
    });
    bytes = unpacked.then(() => makeInChild([name])).then(() => readFile(path));
    made.set(name, bytes);
    void bytes.catch(() => undefined).finally(() => made.delete(name));
  }
  return bytes;
}

/**
 * Real photographs for tests inside workerd (which has no file system): `/photos/sample/<name>` is
 * a committed sample (test/fixtures/photos), `/photos/prepared/<name>` a large input made from a
 * Debian package's photo on first request (scripts/real-photos.ts, cached by recipe in .cache/photos),
 * `/photos/c2pa/<name>` a public C2PA file (npm run c2pa-files fills .cache/c2pa-files; 404 when absent).
 */
export const photos: FakeHandler = async (req) => {
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
  if (kind === "prepared") {
    if (!Object.hasOwn(INPUTS, name)) return { status: 404, body: "no such prepared input" };
    return { status: 200, headers: { "content-type": "application/octet-stream" }, body: await preparedBytes(name) };
  }
  return { status: 404, body: "no such photo" };
};
