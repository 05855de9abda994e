/**
 * Rebuilds the camera fixtures the browser suite feeds Chromium
 * (`--use-file-for-fake-video-capture`) into .cache/capture-fixtures/browser-<recipe key>/ (gitignored):
 *
 *   genuine-cockatoo.y4m  10 s of a phone's video held by hand (imageio's cockatoo.mp4, Debian's
 *                     python3-imageio): longer than a test's preview, as Chromium loops the file (a
 *                     loop is itself a cue)
 *   still.y4m         one frame of a real photograph (opencv-doc's building.jpg): a still fed as the camera
 *   still-2.y4m       another photograph (home.jpg): each test's photo is new to the tenant's history
 *   noisy.y4m         another photograph (fruits.jpg) with fresh noise (σ 1.5) on every frame, 10 s: a
 *                     still behind a noise filter (the attack ladder's rung 2)
 *   near3d-bobot.y4m  dlib's example video frames (Debian's libdlib19.1: the BoBoT tracking dataset, a
 *                     table of boxes and mugs walked around by hand), 6 s at 25 fps
 *   flat-wall.y4m     a wall with printed markers filmed by a phone held by hand (AR.js's sample video,
 *                     npm's ar.js 1.4.10), 10 s from 3 s: a flat genuine scene, one moving plane
 *   display-phone.y4m a phone's screen filmed up close by a moving camera (jsartoolkit5's sample video,
 *                     npm's jsartoolkit5 0.0.4), 8 s from 18 s: a display filmed by a camera (rung 6)
 *
 * Sources are fetched with `apt-get download` (nothing installed; CI reaches Debian) or `npm pack`, converted by
 * ffmpeg. Idempotent. `npm run capture-fixtures`; the evaluation (scripts/eval/capture-burst.ts)
 * reads the same sources.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { noisyStill } from "./attacks";
import { BROWSER_GENUINE, DISPLAY_PHONE, FLAT_WALL, GENUINE, SCREEN_PHOTOS } from "./sources";
import { recipeKey } from "../lib/recipe-key";
import { CACHE, debianFile, HEIGHT, npmFile, readPhotoGrey, ROOT, sequenceToY4m, videoToY4m, WIDTH, writeGreyY4m } from "./video";

/** Named after the recipes below and the code they call (`recipeKey`): a changed recipe builds anew. */
export const BROWSER_FIXTURES = path.join(
  CACHE,
  `browser-${recipeKey(["build.ts", "video.ts", "attacks.ts", "sources.ts"].map((file) => path.join(ROOT, "scripts/capture-fixtures", file)))}`,
);
export const FIXTURES = {
  genuine: path.join(BROWSER_FIXTURES, `genuine-${BROWSER_GENUINE}.y4m`),
  still: path.join(BROWSER_FIXTURES, "still.y4m"),
  still2: path.join(BROWSER_FIXTURES, "still-2.y4m"),
  noisy: path.join(BROWSER_FIXTURES, "noisy.y4m"),
  near3d: path.join(BROWSER_FIXTURES, "near3d-bobot.y4m"),
  flat: path.join(BROWSER_FIXTURES, "flat-wall.y4m"),
  display: path.join(BROWSER_FIXTURES, "display-phone.y4m"),
};

/** dlib's example frames (scripts/eval/capture-footage/manifest.tsv, `dlib-bobot-table`). */
const BOBOT = { source: { kind: "debian" as const, package: "libdlib19.1", version: "19.24+dfsg-1", path: "usr/share/doc/libdlib19.1/examples/video_frames" }, pattern: "*.jpg", fps: 25 };

export function buildFixtures(): typeof FIXTURES {
  mkdirSync(BROWSER_FIXTURES, { recursive: true });
  if (!existsSync(FIXTURES.genuine)) {
    const genuine = GENUINE.find((g) => g.name === BROWSER_GENUINE)!;
    videoToY4m(debianFile(genuine.source), FIXTURES.genuine, { start: 2, seconds: 10 });
  }
  const photo = debianFile(SCREEN_PHOTOS[0]!);
  if (!existsSync(FIXTURES.still)) videoToY4m(photo, FIXTURES.still, { seconds: 1, frames: 1 });
  if (!existsSync(FIXTURES.still2)) videoToY4m(debianFile(SCREEN_PHOTOS[1]!), FIXTURES.still2, { seconds: 1, frames: 1 });
  // A photograph of its own: the reuse index would otherwise find the still tests' photo in it.
  if (!existsSync(FIXTURES.noisy)) writeGreyY4m(FIXTURES.noisy, noisyStill(readPhotoGrey(debianFile(SCREEN_PHOTOS[3]!), WIDTH, HEIGHT), 30, 10, 32));
  if (!existsSync(FIXTURES.near3d)) sequenceToY4m(debianFile(BOBOT.source), BOBOT.pattern, BOBOT.fps, FIXTURES.near3d);
  if (!existsSync(FIXTURES.flat)) videoToY4m(npmFile(FLAT_WALL), FIXTURES.flat, { start: 3, seconds: 10 });
  if (!existsSync(FIXTURES.display)) videoToY4m(npmFile(DISPLAY_PHONE), FIXTURES.display, { start: 18, seconds: 8 });
  return FIXTURES;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const built = buildFixtures();
  for (const file of Object.values(built)) console.log(file);
}
