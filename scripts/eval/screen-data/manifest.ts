import type { SampleClass, Split } from "./sources";

/** One image of the real-recapture set: a row of manifest.tsv. */
export interface Entry {
  repo: string;
  commit: string;
  path: string;
  sha256: string;
  bytes: number;
  cls: SampleClass;
  display: string;
  licence: string;
  split: Split;
  note: string;
}

const COLUMNS = ["repo", "commit", "path", "sha256", "bytes", "class", "display", "licence", "split", "note"] as const;

export function formatManifest(entries: Entry[]): string {
  const clean = (s: string) => s.replace(/[\t\n]/g, " ");
  const rows = entries.map((e) => [e.repo, e.commit, e.path, e.sha256, String(e.bytes), e.cls, e.display, e.licence, e.split, e.note].map(clean).join("\t"));
  return [COLUMNS.join("\t"), ...rows].join("\n") + "\n";
}

export function parseManifest(text: string): Entry[] {
  const [header, ...lines] = text.split("\n").filter(Boolean);
  if (header !== COLUMNS.join("\t")) throw new Error(`unexpected manifest header: ${header}`);
  return lines.map((line) => {
    const [repo, commit, path, sha256, bytes, cls, display, licence, split, note] = line.split("\t");
    if (cls !== "recapture" && cls !== "real") throw new Error(`unknown class ${cls} in ${line}`);
    if (split !== "train" && split !== "test") throw new Error(`unknown split ${split} in ${line}`);
    return { repo: repo!, commit: commit!, path: path!, sha256: sha256!, bytes: Number(bytes), cls, display: display!, licence: licence!, split, note: note ?? "" };
  });
}
