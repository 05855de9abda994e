/**
 * Which files of which public repositories make the real-recapture set, and how they are labelled.
 * Every rule was set by looking at the pictures (contact sheets of each folder): a folder is taken
 * only when its pictures are camera photos of a display (a bezel, a keyboard, glare, a visible
 * pixel grid), and folders of synthetic moiré or of printouts are left out by name below.
 * make-manifest.ts turns these rules into manifest.tsv; build.ts rebuilds the files from it.
 *
 * Split by source repository, never by image: each repository is one photographer with one or two
 * phones and one set of screens, so images of one repository are not independent of each other.
 */

export type SampleClass = "recapture" | "real";
export type Split = "train" | "test";

export interface SourceRule {
  /** Folder inside the repository (files directly in it and below it). */
  under: string;
  cls: SampleClass;
  /** Display type when the folder names it. */
  display?: string;
  /** File names (basename, case-insensitive) left out, with the reason in `note`. */
  exclude?: RegExp;
  /** Only file names matching this are taken. */
  only?: RegExp;
  note?: string;
}

export interface Source {
  repo: string;
  commit: string;
  split: Split;
  licence: string;
  rules: SourceRule[];
}

const NONE = "none stated";

export const SOURCES: Source[] = [
  {
    repo: "aakash-kr-7/screen-recapture-detector",
    commit: "12d4b661488b02c5c67aa00c202a525fa7c480c0",
    split: "train",
    licence: NONE,
    rules: [
      { under: "dataset/screen/s1_laptop", cls: "recapture", display: "laptop" },
      { under: "dataset/screen/s2_miscellaneous_closeups", cls: "recapture", display: "mixed, close-up" },
      { under: "dataset/screen/s3_monitor_bright", cls: "recapture", display: "monitor" },
      { under: "dataset/screen/s4_tv_livingroom", cls: "recapture", display: "tv" },
      { under: "dataset/screen/s5_tablet", cls: "recapture", display: "tablet" },
      { under: "dataset/screen/s6_phone_of_phone", cls: "recapture", display: "phone" },
      // s7_printout: photos of paper prints, not of a display.
      { under: "dataset/real", cls: "real", note: "includes fabric, glossy and bright confounders" },
    ],
  },
  {
    repo: "yash2607-del/Salescode-ai-screen_recapture_detector",
    commit: "5a22c91eef5da081cb1fa557675c67191e1ec2b8",
    split: "train",
    licence: NONE,
    rules: [
      // The same pictures are copied again under dataset/train|val|test: duplicates are dropped by hash.
      { under: "dataset", cls: "recapture", only: /\/screen\//i, display: "laptop, phone" },
      { under: "dataset", cls: "real", only: /\/real\/(?!real_)/i, note: "own captures" },
      { under: "dataset", cls: "real", only: /\/real\/real_/i, note: "stock photographs (1024×768), not the author's captures" },
    ],
  },
  {
    repo: "avnirastogi14/SalesCode-AvniRastogi-SpotFakePhoto",
    commit: "f757f7e2b0f1aedda00c2fb083a592e30e69a5f1",
    split: "train",
    licence: NONE,
    rules: [
      { under: "data/screen", cls: "recapture", display: "laptop, phone", exclude: /^test\.png$/i },
      { under: "data/TEST/screen", cls: "recapture", display: "laptop, phone" },
      // Named after a display: may show one.
      { under: "data/real", cls: "real", exclude: /^(notes-ipad|display-hanging)\./i },
      { under: "data/TEST/real", cls: "real" },
    ],
  },
  {
    repo: "Raghava44u/salescode_ai",
    commit: "36d5df2f8011ec3a851da84d08912887533cd14c",
    split: "train",
    licence: NONE,
    rules: [
      { under: "dataset", cls: "recapture", only: /\/fake\//i, display: "monitor, phone" },
      { under: "dataset", cls: "real", only: /\/real\//i },
    ],
  },
  {
    repo: "shrimantasatpati/Spot-the-Fake-Photo",
    commit: "2acb1cb6b6e1dade57c493aeefbc8ce4172a5261",
    split: "test",
    licence: NONE,
    rules: [
      { under: "dataset/screen", cls: "recapture", display: "monitor", note: "1024×768 resized" },
      { under: "dataset/real", cls: "real", note: "the same objects photographed directly" },
    ],
  },
  {
    repo: "DEVANSH263/SalesCode-Spot-The-Fake-Photo",
    commit: "af742640adf591cded0234f2824dba85c62d7eff",
    split: "test",
    licence: NONE,
    rules: [
      { under: "Data/screen", cls: "recapture", display: "laptop, phone", note: "messenger copies" },
      { under: "Data/real", cls: "real", note: "messenger copies" },
    ],
  },
  {
    repo: "Lord-Siddi/spot-the-fake-photo",
    commit: "fe141071632e91a864c87e032f8783f1216c03b4",
    split: "test",
    licence: NONE,
    rules: [
      { under: "data/screen-laptop", cls: "recapture", display: "laptop", note: "messenger copies" },
      { under: "data/screen-mobile", cls: "recapture", display: "phone", note: "messenger copies" },
      // data/screen-print: paper prints, not a display.
      { under: "data/real", cls: "real", note: "messenger copies" },
    ],
  },
  {
    repo: "HarshitaJindal09/Spot-The-Fake-Photo",
    commit: "451b5cad08e1be419c6d635a593f829dbdb080ce",
    split: "test",
    licence: "MIT",
    rules: [
      // IMAGE1 (n).jpg are stock photos with synthetic stripes; image121 (n).jpg webcam frames of unknown origin.
      { under: "dataset", cls: "recapture", only: /\/screen\/whatsapp[^/]*$/i, display: "laptop, monitor, tv", note: "messenger copies" },
    ],
  },
  {
    repo: "KartikeyaM2007/salescode-recapture-detector",
    commit: "1d6e7200461f14d79b524f1ee61c06bf26d9d3b6",
    split: "test",
    licence: NONE,
    rules: [
      { under: "frontend/public/sample_photos/screen", cls: "recapture", display: "phone, tablet" },
      { under: "frontend/public/sample_photos/real", cls: "real" },
    ],
  },
];

/** A snapshot fetched with the search tool's `fetch` lands here as a bare git directory. */
export function mirrorDir(repo: string): string {
  return `/work/.mirror/${repo.replace("/", "+")}/repo`;
}

export const IMAGE_FILE = /\.(jpe?g|png)$/i;
