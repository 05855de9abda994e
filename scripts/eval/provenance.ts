/**
 * Provenance on public files (docs/signals.md, "Provenance on public files"): every file of
 * scripts/eval/provenance-data/manifest.tsv (generator outputs with C2PA manifests, IPTC source
 * types or generator parameters, signed camera photos, the C2PA conformance files, ordinary photos)
 * through the service's own analysis, as a live capture with the default signals, each in a tenant
 * of its own, with the deployment's default configuration (no provider, `C2PA_TRUSTED_SIGNERS`
 * from the environment, unset by default). Two readings per file:
 * - provenance: `observed.ai_detection` (metadata.ts + ai-provenance.ts, what the case analysis
 *   reads; the C2PA summary beside it);
 * - what a tenant sees: the capture's `signals.ai_detection` in the stored result.
 * Prints markdown with the commit it ran on; `--write` replaces the block between
 * `<!-- provenance-eval:start -->` and `<!-- provenance-eval:end -->` in docs/signals.md;
 * `--label "…"` names the run in the heading (e.g. which branch it measures).
 *
 *   npx tsx scripts/eval/provenance-data/build.ts   # fill .cache/provenance-data/ first
 *   npm run eval:provenance -- --label "after the c2pa-read branch" --write
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { analyzeImage } from "../../src/analysis/analyze-image";
import type { AiResult } from "../../src/analysis/evidence";
import { sniffMediaType } from "../../src/model/evidence/media-type";
import { DEFAULT_SIGNALS } from "../../src/schemas/verification-create";
import { buildProvenanceData, cachePath, readManifest } from "./provenance-data/build";
import { CLASSES, type Entry, type Expected, type SampleClass } from "./provenance-data/manifest";
import { rate } from "./stats";

type Outcome = "correct" | "not read" | "wrong";

interface Measured {
  entry: Entry;
  provenance: string;
  tenant: string;
  c2pa: string;
  evidence: string[];
  outcome: Outcome;
  tenantOutcome: Outcome | null;
}

/** The deployment default: no trusted signer unless the environment names some (src/providers/analysis.ts). */
const trustedSigners = (process.env.C2PA_TRUSTED_SIGNERS ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);

/** A label read against what the file says it is (manifest.ts, `expected`). */
function judgeLabel(expected: Expected, label: string): Outcome {
  if (expected === "ai") return label === "likely_ai" ? "correct" : label === "likely_human" ? "wrong" : "not read";
  if (expected === "human") return label === "likely_human" ? "correct" : label === "likely_ai" ? "wrong" : "not read";
  // Not assessed (an undecodable file, a refused upload) is no reading at all, right or wrong.
  return label === "unknown" ? "correct" : label === "likely_ai" || label === "likely_human" ? "wrong" : "not read";
}

/** A conformance file: was a manifest read, and does its validity agree with the reference reading. */
function judgeManifest(expected: Expected, c2pa: { valid: boolean } | null): Outcome {
  if (!c2pa) return "not read";
  if (expected === "manifest") return "correct";
  return c2pa.valid === (expected === "valid") ? "correct" : "wrong";
}

function labelOf(value: unknown): string {
  if (typeof value !== "object" || value === null) return "absent";
  const v = value as { label?: string; status?: string; reason?: string };
  return v.label ?? (v.status ? `${v.status}${v.reason ? `: ${v.reason}` : ""}` : "absent");
}

async function measure(entry: Entry, index: number): Promise<Measured> {
  const bytes = new Uint8Array(readFileSync(cachePath(entry)));
  const mediaType = sniffMediaType(bytes);
  const scoresManifest = entry.cls === "c2pa_test_file";
  if (!mediaType) {
    return { entry, provenance: "refused at upload (415)", tenant: "refused at upload (415)", c2pa: "–", evidence: [], outcome: "not read", tenantOutcome: scoresManifest ? null : "not read" };
  }
  const captureId = `cap_eval_${index}`;
  try {
    const result = await analyzeImage(
      {
        captureId,
        tenantId: `tnt_eval_${index}`,
        bytes,
        mediaType,
        uploaded: false,
        depthPng: null,
        channel: "api",
        captureIntegrity: null,
        location: null,
        clientCapturedAt: null,
        required: DEFAULT_SIGNALS,
      },
      { searchHistory: async () => ({ matches: [], shared: false }), vision: null, web: null, aiPixels: null, aiProvider: null, trustedSigners, testMarkers: false },
    );
    const provenance: AiResult = result.observed.ai_detection;
    const tenant = labelOf(result.signals.ai_detection);
    const c2pa = result.metadata.c2pa;
    const c2paText = c2pa ? `${c2pa.valid ? "valid" : "invalid"}${c2pa.trusted ? ", trusted" : ""}${c2pa.failures.length ? ` (${[...new Set(c2pa.failures)].join(", ").slice(0, 120)})` : ""}` : "none read";
    return {
      entry,
      provenance: provenance.label,
      tenant,
      c2pa: c2paText,
      evidence: [...new Set(provenance.evidence.map((e) => e.code))],
      outcome: scoresManifest ? judgeManifest(entry.expected, c2pa) : judgeLabel(entry.expected, provenance.label),
      tenantOutcome: scoresManifest ? null : judgeLabel(entry.expected, tenant),
    };
  } catch (err) {
    const why = `analysis threw: ${String(err instanceof Error ? err.message : err).slice(0, 100)}`;
    return { entry, provenance: why, tenant: why, c2pa: "–", evidence: [], outcome: "not read", tenantOutcome: scoresManifest ? null : "not read" };
  }
}

const CLASS_NAMES: Record<SampleClass, string> = {
  c2pa_generator: "(a) generator output, C2PA-signed",
  c2pa_camera: "(b) camera photo, C2PA-signed",
  iptc_generator: "(c) generator output, IPTC DigitalSourceType",
  generator_parameters: "(d) generator output, parameters in PNG text / EXIF / XMP",
  generator_stripped: "(d′) generator output re-saved without metadata",
  c2pa_test_file: "(e) C2PA conformance files (manifest read, validity as the reference)",
  plain_photo: "(f) ordinary photos, no provenance",
};

const EXPECT_TEXT: Record<Expected, string> = {
  ai: "`likely_ai`",
  human: "`likely_human` (trusted signer)",
  none: "`unknown`",
  valid: "manifest valid",
  invalid: "manifest invalid",
  manifest: "manifest read",
};

function count(xs: Measured[], outcome: Outcome, tenant = false): number {
  return xs.filter((m) => (tenant ? m.tenantOutcome : m.outcome) === outcome).length;
}

function groupTable(measured: Measured[]): string {
  const lines = [
    "| class | source group | expected | n | decided correctly | not read | wrong | correct (95 % CI) | wrong (95 % CI) | a tenant sees `ai_detection` |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const cls of CLASSES) {
    const ofClass = measured.filter((m) => m.entry.cls === cls);
    for (const group of [...new Set(ofClass.map((m) => m.entry.group))].sort()) {
      const xs = ofClass.filter((m) => m.entry.group === group);
      for (const expected of [...new Set(xs.map((m) => m.entry.expected))]) {
        const ys = xs.filter((m) => m.entry.expected === expected);
        const seen = Object.entries(ys.reduce<Record<string, number>>((acc, m) => ({ ...acc, [m.tenant]: (acc[m.tenant] ?? 0) + 1 }), {}))
          .sort((a, b) => b[1] - a[1])
          .map(([label, n]) => `${label} ${n}`)
          .join(", ");
        const n = ys.length;
        lines.push(
          `| ${CLASS_NAMES[cls]} | ${group} | ${EXPECT_TEXT[expected]} | ${n} | ${count(ys, "correct")} | ${count(ys, "not read")} | ${count(ys, "wrong")} | ${rate(count(ys, "correct"), n)} | ${rate(count(ys, "wrong"), n)} | ${cls === "c2pa_test_file" ? "not scored" : seen} |`,
        );
      }
    }
  }
  return lines.join("\n");
}

function classTable(measured: Measured[]): string {
  const lines = [
    "| class | n | provenance: correct | not read | wrong | correct (95 % CI) | tenant: correct | not read | wrong |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const cls of CLASSES) {
    const xs = measured.filter((m) => m.entry.cls === cls);
    if (xs.length === 0) continue;
    const t = cls === "c2pa_test_file" ? ["–", "–", "–"] : [count(xs, "correct", true), count(xs, "not read", true), count(xs, "wrong", true)];
    lines.push(`| ${CLASS_NAMES[cls]} | ${xs.length} | ${count(xs, "correct")} | ${count(xs, "not read")} | ${count(xs, "wrong")} | ${rate(count(xs, "correct"), xs.length)} | ${t.join(" | ")} |`);
  }
  return lines.join("\n");
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

function fileLines(measured: Measured[]): string {
  // Ordinary photos read as they should are counted, not listed (hundreds of identical lines).
  const listed = measured.filter((m) => m.entry.cls !== "plain_photo" || m.outcome !== "correct" || m.tenantOutcome !== "correct");
  const lines = [
    "| file | class | expected | outcome | provenance | tenant sees | C2PA read by the service | evidence codes | the file says (ExifTool) |",
    "|---|---|---|---|---|---|---|---|---|",
    ...listed.map((m) =>
      [
        `\`${m.entry.repo}:${m.entry.path}\``,
        m.entry.cls,
        m.entry.expected,
        m.outcome,
        m.provenance,
        m.tenant,
        m.c2pa,
        m.evidence.join(", "),
        m.entry.says.slice(0, 240),
      ]
        .map(cell)
        .join(" | "),
    ).map((row) => `| ${row} |`),
  ];
  const hidden = measured.length - listed.length;
  if (hidden > 0) lines.push("", `${hidden} ordinary photos read \`unknown\` as they should, in both readings, and are not listed.`);
  return lines.join("\n");
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown";
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const labelAt = process.argv.indexOf("--label");
  const label = labelAt > 0 ? process.argv[labelAt + 1] : undefined;
  const entries = readManifest();
  const { ready, missing } = buildProvenanceData(entries);
  if (missing.length > 0) console.warn(`provenance-data: not fetched, left out: ${missing.join(", ")} (npx tsx scripts/eval/provenance-data/build.ts says how)`);
  const measured: Measured[] = [];
  for (const [i, entry] of ready.entries()) {
    measured.push(await measure(entry, i));
    if ((i + 1) % 50 === 0) console.warn(`${i + 1} of ${ready.length} files analysed`);
  }
  const commit = git(["rev-parse", "HEAD"]);
  // The code measured is src/: name the commit that last changed it (a branch may add only scripts).
  const srcCommit = git(["log", "-1", "--format=%H", "--", "src"]);
  const dirty = git(["status", "--porcelain", "--", "src"]) ? " with uncommitted changes under src/" : "";
  const heading = `Run of ${new Date().toISOString().slice(0, 10)} on commit \`${commit.slice(0, 12)}\` (src/ as of \`${srcCommit.slice(0, 12)}\`)${dirty}${label ? ` (${label})` : ""}: ${measured.length} files${missing.length ? ` (${missing.length} sources not fetched: ${missing.join(", ")})` : ""}, trusted signers: ${trustedSigners.length || "none (the default)"}, ${((Date.now() - started) / 1000).toFixed(0)} s.`;
  const out = [
    `_${heading} Generated by \`npm run eval:provenance\` (scripts/eval/provenance.ts) from scripts/eval/provenance-data/manifest.tsv._`,
    "",
    classTable(measured),
    "",
    groupTable(measured),
    "",
    "<details><summary>Per file</summary>",
    "",
    fileLines(measured),
    "",
    "</details>",
  ].join("\n");
  console.log(out);
  if (process.argv.includes("--write")) {
    const path = new URL("../../docs/signals.md", import.meta.url);
    const doc = readFileSync(path, "utf8");
    const block = /<!-- provenance-eval:start -->[\s\S]*<!-- provenance-eval:end -->/;
    if (!block.test(doc)) throw new Error("docs/signals.md has no <!-- provenance-eval:start --> … <!-- provenance-eval:end --> block");
    writeFileSync(path, doc.replace(block, () => `<!-- provenance-eval:start -->\n${out}\n<!-- provenance-eval:end -->`));
  }
}

await main();
