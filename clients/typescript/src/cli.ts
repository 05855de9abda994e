/*
 * verification-certificate verify <certificate> [photo …] (--issuer URL | --jwks-url URL | --jwks FILE --issuer URL) [--json]
 *
 * Checks a certificate of the Verification Service: its signature against the issuer's published
 * keys (fetched, or a saved key set: offline), that the issuer is the one you trust, and that each
 * photo's SHA-256 is one the certificate lists. Compiled to dist/ (npm run build), it runs on Node 20+.
 *
 * Exit codes: 0 valid, every photo in it; 1 the certificate is not valid; 2 usage or input error (an
 * unreadable file); 3 valid, but a photo is not in it; 4 the issuer's keys could not be fetched
 * (nothing was verified: try again).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  captureWithDigest,
  CertificateError,
  issuerOfJwksUrl,
  JWKS_PATH,
  requesterOf,
  sha256Hex,
  verifyCertificate,
  type CertificatePayload,
  type KeySource,
  type VerifiedCertificate,
} from "./certificate.js";

export const EXIT = { valid: 0, invalid: 1, usage: 2, photoNotCertified: 3, keysUnavailable: 4 } as const;

const USAGE = `Usage: verification-certificate verify <certificate> [photo …] [options]

  <certificate>      a file with the compact JWS, or the JSON of GET /v1/certificates/{token}
  photo …            files to check against the certificate's SHA-256 digests (nothing is uploaded)

Whose keys decide (one of):
  --issuer URL       the service you trust, e.g. https://verify.example.com (its keys are fetched
                     from URL${JWKS_PATH})
  --jwks-url URL     the key set URL; the issuer is that URL without ${JWKS_PATH}
  --jwks FILE        a saved key set, offline; needs --issuer

  --json             print the result as JSON
  -h, --help

Exit codes: 0 valid and every photo is in it; 1 not valid; 2 usage error; 3 valid, but a photo is not
in it; 4 the issuer's keys could not be fetched (nothing was verified).`;

class UsageError extends Error {}

interface PhotoResult {
  file: string;
  sha256: string;
  capture?: CertificatePayload["verification"]["captures"][number];
}

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * Control characters a terminal acts on (C0 but the newline, DEL, C1, whose 0x9B is an 8-bit CSI),
 * the Unicode line and paragraph separators (U+2028, U+2029) and the bidirectional overrides and
 * isolates that reorder what is shown: a certificate carries text its tenant typed (the display
 * name, step keys), and a JSON body is not trusted before it verifies.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same and the newline: within one value from the certificate, which must never start a line of its own. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS_AND_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escaped(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).toUpperCase().padStart(2, "0")}` : `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** What is printed: each such character shown as its escape (`\x1B`, `\u202E`), never sent to the terminal. Keeps the command's own newlines. */
export function printable(text: string): string {
  return text.replace(CONTROLS, escaped);
}

/**
 * One value from the certificate or the server as the command prints it: `printable`, and its
 * newlines escaped too (`\x0A`), so a name or key cannot print a line that looks like the command's
 * own ("VALID: …", "Requested by: …").
 */
export function printableValue(value: unknown): string {
  return String(value).replace(CONTROLS_AND_NEWLINE, escaped);
}

/** JSON for the terminal: what JSON.stringify leaves raw (DEL, C1, U+2028, U+2029, the bidi controls) as \u escapes; it parses to the same values. */
function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Runs the command with `argv` (without `node` and the script); resolves to the exit code. */
export async function main(argv: string[], terminal: Io = { out: (l) => console.log(l), err: (l) => console.error(l) }): Promise<number> {
  const io: Io = { out: (line) => terminal.out(printable(line)), err: (line) => terminal.err(printable(line)) };
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (err) {
    io.err(err instanceof Error ? err.message : String(err));
    io.err("");
    io.err(USAGE);
    return EXIT.usage;
  }
  if (args.help) {
    io.out(USAGE);
    return EXIT.valid;
  }
  let jws: string;
  let source: KeySource;
  let photos: Array<{ file: string; bytes: Uint8Array }>;
  try {
    jws = certificateText(await readFile(args.certificate, "utf8"));
    source = await keySource(args);
    photos = await Promise.all(args.photos.map(async (file) => ({ file, bytes: new Uint8Array(await readFile(file)) })));
  } catch (err) {
    io.err(err instanceof UsageError || isFileError(err) ? (err as Error).message : String(err));
    return EXIT.usage;
  }

  let verified: VerifiedCertificate;
  try {
    verified = await verifyCertificate(jws, source);
  } catch (err) {
    if (!(err instanceof CertificateError)) throw err;
    if (args.json) io.out(terminalJson({ valid: false, problem: err.problem, message: err.message }));
    else if (err.problem === "keys_unavailable") io.err(`NOT CHECKED: ${err.message}`);
    else io.err(`NOT VALID: ${err.message}${claimedIssuerHint(jws, err)}`);
    return err.problem === "keys_unavailable" ? EXIT.keysUnavailable : EXIT.invalid;
  }

  const results: PhotoResult[] = await Promise.all(
    photos.map(async ({ file, bytes }) => {
      const sha256 = await sha256Hex(bytes);
      const capture = captureWithDigest(verified.payload, sha256);
      return { file, sha256, ...(capture ? { capture } : {}) };
    }),
  );
  const allIn = results.every((r) => r.capture);
  if (args.json) io.out(terminalJson({ valid: true, kid: verified.kid, payload: verified.payload, photos: results }));
  else describe(verified, results, io);
  return allIn ? EXIT.valid : EXIT.photoNotCertified;
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      issuer: { type: "string" },
      "jwks-url": { type: "string" },
      jwks: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return { help: true as const, certificate: "", photos: [], json: false };
  const [command, certificate, ...photos] = positionals;
  if (command !== "verify") throw new UsageError(command ? `Unknown command "${command}".` : "Missing the command (verify).");
  if (!certificate) throw new UsageError("Missing the certificate file.");
  if (values.jwks && values["jwks-url"]) throw new UsageError("Give either --jwks or --jwks-url, not both.");
  if (values.jwks && !values.issuer) throw new UsageError("With --jwks (offline), name the issuer you trust with --issuer.");
  if (!values.jwks && !values["jwks-url"] && !values.issuer) throw new UsageError("Name the issuer you trust: --issuer URL (or --jwks-url URL, or --jwks FILE --issuer URL).");
  return {
    help: false as const,
    certificate,
    photos,
    json: values.json ?? false,
    ...(values.issuer ? { issuer: values.issuer.replace(/\/+$/, "") } : {}),
    ...(values["jwks-url"] ? { jwksUrl: values["jwks-url"] } : {}),
    ...(values.jwks ? { jwksFile: values.jwks } : {}),
  };
}

async function keySource(args: { issuer?: string; jwksUrl?: string; jwksFile?: string }): Promise<KeySource> {
  if (args.jwksFile) {
    let jwks: unknown;
    try {
      jwks = JSON.parse(await readFile(args.jwksFile, "utf8"));
    } catch (err) {
      if (isFileError(err)) throw err;
      throw new UsageError(`${args.jwksFile} is not JSON.`);
    }
    if (!Array.isArray((jwks as { keys?: unknown })?.keys)) throw new UsageError(`${args.jwksFile} is not a key set ({"keys": [...]}).`);
    return { jwks: jwks as { keys: [] }, issuer: args.issuer! };
  }
  if (args.jwksUrl) {
    try {
      return { jwksUrl: args.jwksUrl, issuer: args.issuer ?? issuerOfJwksUrl(args.jwksUrl) };
    } catch (err) {
      throw new UsageError(err instanceof Error ? err.message : String(err));
    }
  }
  return { jwksUrl: `${args.issuer}${JWKS_PATH}`, issuer: args.issuer! };
}

/** The JWS from a file: the compact JWS itself, or the JSON a certificate link answers. */
function certificateText(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return trimmed;
  try {
    const certificate = (JSON.parse(trimmed) as { certificate?: unknown }).certificate;
    if (typeof certificate === "string") return certificate;
  } catch {
    // not JSON after all: verified (and refused) as it is
  }
  throw new UsageError('The certificate file is JSON without a "certificate" field.');
}

/** When the issuer did not match, says which one the certificate names (never trusted on its own say-so). */
function claimedIssuerHint(jws: string, err: CertificateError): string {
  if (err.problem !== "issuer") return "";
  try {
    const claimed = (JSON.parse(Buffer.from(jws.split(".")[1] ?? "", "base64url").toString("utf8")) as { iss?: unknown }).iss;
    return typeof claimed === "string" ? `\nIt names ${printableValue(claimed)} as its issuer; check that with --issuer ${printableValue(claimed)} only if you trust that service.` : "";
  } catch {
    return "";
  }
}

function describe(verified: VerifiedCertificate, photos: PhotoResult[], io: Io): void {
  for (const line of describeCertificate(verified, photos)) io.out(line);
}

/** The lines `verify` prints for a valid certificate: every value it carries passed through `printableValue`. */
export function describeCertificate({ payload, kid }: VerifiedCertificate, photos: PhotoResult[]): string[] {
  const f = printableValue;
  const v = payload.verification;
  const lines: string[] = [];
  lines.push(`VALID: certificate #${f(payload.sequence)} of ${f(v.id)}, issued by ${f(payload.iss)} on ${new Date(payload.iat * 1000).toISOString()} (key ${f(kid)})`);
  // Every certificate the verifier accepts carries `exp` (it is a required claim there).
  lines.push(`  Expires:       ${new Date((payload as { exp: number }).exp * 1000).toISOString()} (then ask for a current one)`);
  const requester = requesterOf(payload);
  lines.push(`  Requested by:  ${requester.kind === "verified_domain" ? `${f(requester.name)} (a domain it proved it controls)` : `"${f(requester.name)}" (the name as declared by the tenant; not checked by the issuer)`}`);
  if ("id" in v.tenant) lines.push(`  Tenant:        ${f(v.tenant.id)}`);
  lines.push(`  Status:        ${f(v.status)}, completed ${f(v.completed_at)}${v.redacted_at ? `; evidence erased ${f(v.redacted_at)}` : ""}`);
  lines.push(`  Verdict:       ${f(v.verdict.label)}${v.verdict.reason_code ? ` (${f(v.verdict.reason_code)})` : ""}, assessment ${f(v.verdict.assessment)}`);
  if ("signals" in v.verdict) {
    for (const [signal, { status, method }] of Object.entries(v.verdict.signals)) lines.push(`    ${f(signal)}: ${f(status.replace(/_/g, " "))}${method ? ` (${f(method)})` : ""}`);
  }
  if (v.review) lines.push(`  Review:        ${f(v.review.decision)} on ${f(v.review.reviewed_at)}`);
  if (v.finalized_at) lines.push(`  Finalized:     ${f(v.finalized_at)}`);
  lines.push(`  Captures:      ${v.captures.length}`);
  for (const c of v.captures) {
    lines.push(`    ${f(c.id)}  step ${f(c.step_key)}, ${c.kind === "live" ? "submitted through the capture link" : "uploaded file"}, received ${f(c.received_at)}  sha256 ${f(c.sha256)}`);
  }
  for (const p of photos) {
    const name = f(path.basename(p.file));
    lines.push(p.capture ? `  MATCH      ${name}: capture ${f(p.capture.id)} (step ${f(p.capture.step_key)})` : `  NOT IN IT  ${name}: sha256 ${p.sha256} is not one of this certificate's photos`);
  }
  lines.push("This says what the service saw and decided; it does not say what a photo shows is true.");
  return lines;
}

function isFileError(err: unknown): boolean {
  return typeof err === "object" && err !== null && "code" in err && typeof (err as { path?: unknown }).path === "string";
}
