#!/usr/bin/env node
// First step of `npm test`: the system programs the suite needs beyond npm packages.
//  - Debian's Chromium drives the browser suite (playwright-core downloads no browser);
//  - ImageMagick, libheif's heif-enc and webp's cwebp make the real-photo test inputs from a Debian
//    package's photographs (scripts/real-photos.ts);
//  - ffmpeg turns a Debian package's videos into the browser suite's camera fixtures
//    (scripts/capture-fixtures/build.ts);
//  - poppler's pdftoppm, pdftotext and pdfimages render and read the evidence reports, and zbar's
//    zbarimg reads their QR code back (test/browser/report.test.ts).
// Missing ones are installed with apt-get when this runs as root on Debian (as in CI); otherwise it
// stops at once with the one command to run, instead of failing minutes later inside a test.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Each requirement: the Debian package that provides it and how to tell it is really there. */
const REQUIREMENTS = [
  { pkg: "chromium", what: "Chromium for the browser suite", present: () => existsSync(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium") },
  // Some machines put a stand-in named `convert` on the PATH: only the real one prints this banner.
  { pkg: "imagemagick", what: "ImageMagick for the real-photo test inputs", present: () => /^Version: ImageMagick/m.test(output("convert", ["-version"])) },
  { pkg: "libheif-examples", what: "heif-enc for the HEIC test inputs", present: () => onPath("heif-enc") },
  { pkg: "webp", what: "cwebp for the WebP test inputs", present: () => onPath("cwebp") },
  { pkg: "ffmpeg", what: "ffmpeg for the browser suite's camera fixtures", present: () => onPath("ffmpeg") && onPath("ffprobe") },
  { pkg: "poppler-utils", what: "pdftoppm and pdftotext for the evidence report's rendering test", present: () => onPath("pdftoppm") && onPath("pdftotext") && onPath("pdfimages") },
  { pkg: "zbar-tools", what: "zbarimg to read the evidence report's QR code back", present: () => onPath("zbarimg") },
];

function output(cmd, args) {
  const run = spawnSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return run.status === 0 ? run.stdout : "";
}

function onPath(cmd) {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

const missing = REQUIREMENTS.filter((r) => !r.present());
if (missing.length === 0) process.exit(0);

const packages = missing.map((r) => r.pkg);
const command = `apt-get install -y ${packages.join(" ")}`;
for (const r of missing) console.error(`npm test: ${r.what} is missing (Debian package ${r.pkg}).`);

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
if (!isRoot || !onPath("apt-get")) {
  console.error(`\nInstall them, then run npm test again:\n\n  sudo ${command}\n`);
  process.exit(1);
}

console.error(`npm test: installing ${packages.join(", ")} with apt-get (running as root)…`);
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
try {
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", ...packages], { stdio: "inherit", env });
} catch {
  console.error(`\nnpm test: apt-get failed. Install the packages yourself, then run npm test again:\n\n  ${command}\n`);
  process.exit(1);
}
const still = REQUIREMENTS.filter((r) => packages.includes(r.pkg) && !r.present());
if (still.length > 0) {
  console.error(`npm test: still missing after apt-get: ${still.map((r) => r.pkg).join(", ")}`);
  process.exit(1);
}
