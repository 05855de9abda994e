/**
 * The provenance set (manifest.tsv, written by curate.py): public image files that say what they
 * are, one row each. `expected` is what a correct reader of provenance answers for the file:
 * - `ai`: a generator's output (`ai_detection` reads `likely_ai`);
 * - `human`: a signed camera capture (`likely_human` once its signer's anchor is trusted);
 * - `none`: neither (`unknown`: an ordinary photo says nothing a reader may trust either way);
 * - `valid` / `invalid`: a C2PA conformance file whose active manifest validates, or not, for the
 *   reference implementation (C2PA Tool's report where the test suite publishes one, else the
 *   suite's file-naming convention);
 * - `manifest`: a conformance file whose manifest must be read (its validity is not scored).
 */

export const CLASSES = ["c2pa_generator", "c2pa_camera", "iptc_generator", "generator_parameters", "generator_stripped", "c2pa_test_file", "plain_photo"] as const;
export type SampleClass = (typeof CLASSES)[number];
export const EXPECTED = ["ai", "human", "none", "valid", "invalid", "manifest"] as const;
export type Expected = (typeof EXPECTED)[number];
export const FORMATS = ["jpeg", "png", "webp", "heic"] as const;
export type Format = (typeof FORMATS)[number];

export interface Entry {
  /** `owner/name` on GitHub, or `debian:<package>`. */
  repo: string;
  /** The git commit, or the Debian package version. */
  commit: string;
  path: string;
  sha256: string;
  bytes: number;
  format: Format;
  cls: SampleClass;
  expected: Expected;
  /** The source group the tables report by. */
  group: string;
  /** What the file's own metadata says (ExifTool's reading, curate.py). */
  says: string;
}

export const COLUMNS = ["repo", "commit", "path", "sha256", "bytes", "format", "class", "expected", "group", "says"] as const;

const GITHUB_REPO = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const DEBIAN_REPO = /^debian:[a-z0-9][a-z0-9.+-]*$/;
const COMMIT = /^[0-9a-f]{40}$/;
const DEBIAN_VERSION = /^[0-9A-Za-z.+~:-]+$/;
const SHA256 = /^[0-9a-f]{64}$/;

function oneOf<T extends string>(values: readonly T[], value: string | undefined, what: string, line: number): T {
  if (!values.includes(value as T)) throw new Error(`manifest line ${line}: ${what} ${JSON.stringify(value)} is not one of ${values.join(", ")}`);
  return value as T;
}

/** Every row checked: a repository (or Debian package), a commit (or version), a path and a sha256, and known labels. */
export function parseManifest(text: string): Entry[] {
  const [header, ...lines] = text.split("\n").filter((l) => l.length > 0);
  if (header !== COLUMNS.join("\t")) throw new Error(`manifest: unexpected header ${JSON.stringify(header)}`);
  return lines.map((text, i) => {
    const line = i + 2;
    const fields = text.split("\t");
    if (fields.length !== COLUMNS.length) throw new Error(`manifest line ${line}: ${fields.length} fields, expected ${COLUMNS.length}`);
    const [repo, commit, path, sha256, bytes, format, cls, expected, group, says] = fields as [string, string, string, string, string, string, string, string, string, string];
    const debian = repo.startsWith("debian:");
    if (!(debian ? DEBIAN_REPO : GITHUB_REPO).test(repo)) throw new Error(`manifest line ${line}: repository ${JSON.stringify(repo)} is neither owner/name nor debian:<package>`);
    if (!(debian ? DEBIAN_VERSION : COMMIT).test(commit)) throw new Error(`manifest line ${line}: ${debian ? "version" : "commit"} ${JSON.stringify(commit)} is malformed`);
    if (path.length === 0 || path.startsWith("/") || path.split("/").includes("..")) throw new Error(`manifest line ${line}: path ${JSON.stringify(path)} is not a relative path inside its source`);
    if (!SHA256.test(sha256)) throw new Error(`manifest line ${line}: sha256 ${JSON.stringify(sha256)} is not 64 hex digits`);
    const size = Number(bytes);
    if (!Number.isSafeInteger(size) || size <= 0) throw new Error(`manifest line ${line}: bytes ${JSON.stringify(bytes)} is not a positive integer`);
    if (group.trim().length === 0 || says.trim().length === 0) throw new Error(`manifest line ${line}: group and says must not be empty`);
    return {
      repo,
      commit,
      path,
      sha256,
      bytes: size,
      format: oneOf(FORMATS, format, "format", line),
      cls: oneOf(CLASSES, cls, "class", line),
      expected: oneOf(EXPECTED, expected, "expected", line),
      group,
      says,
    };
  });
}

export function formatManifest(entries: Entry[]): string {
  const rows = entries.map((e) => [e.repo, e.commit, e.path, e.sha256, String(e.bytes), e.format, e.cls, e.expected, e.group, e.says].join("\t"));
  return [COLUMNS.join("\t"), ...rows].join("\n") + "\n";
}
