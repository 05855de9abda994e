import "reflect-metadata";
import { BMFF, JPEG, PNG, type Asset } from "@trustnxt/c2pa-ts/asset";
import { Signature as CoseSignature } from "@trustnxt/c2pa-ts/cose";
import { CBORBox, SuperBox } from "@trustnxt/c2pa-ts/jumbf";
import { ManifestStore, type Manifest } from "@trustnxt/c2pa-ts/manifest";
import * as pkijs from "pkijs";
import { installStreamingDigest } from "./c2pa-digest";
import { DEFAULT_TRUST, stapledRevocation, validateChain, type C2paTrust, type TrustResult } from "./c2pa-trust";
import { WebP } from "./c2pa-webp";
import { checkJumbfBounds } from "./jumbf-boxes";

/**
 * C2PA manifest store, read with c2pa-ts (pure TypeScript, runs in workerd) plus what it lacks here:
 * WebP (c2pa-webp.ts), C2PA 2.x timestamps (`sigTst2`, below), every manifest's declarations read
 * from the store itself (so a store c2pa-ts cannot validate still says what it declares), and the
 * signer's chain validated to trust anchors with stapled OCSP (c2pa-trust.ts). The choice of
 * c2pa-ts over the reference implementation compiled to WebAssembly is measured in docs/signals.md
 * ("C2PA reader", bench/c2pa.ts).
 */

/** One thing a manifest says about how the content came to be. */
export interface C2paDeclaration {
  /** The manifest's label (`urn:c2pa:…` / `urn:uuid:…`). */
  manifest: string;
  /** `active`, or how the manifest is referenced as an ingredient (`parentOf`, `componentOf`, `inputTo`), or `ingredient`. */
  role: string;
  /** The assertion that says it: `c2pa.actions.v2`, `c2pa.actions`, `stds.iptc`, … */
  assertion: string;
  /** The action (`c2pa.created`, `c2pa.opened`, …); null for a metadata assertion. */
  action: string | null;
  /** IPTC digital source type, http form, when declared. */
  source_type: string | null;
  /** The action's software agent, else the claim generator, when the action is `c2pa.created`. */
  agent: string | null;
}

export interface C2paSummary {
  /** Every `digitalSourceType` declared in any manifest of the store (http form). */
  digital_source_types: string[];
  /** Each declaration with the manifest and assertion that made it (the evidence names them). */
  declarations: C2paDeclaration[];
  /** The active manifest's claim generator. */
  claim_generator: string | null;
  /** Labels of every manifest in the store, the active one last. */
  manifests: string[];
  /** Active manifest structurally valid: binding hash, claim signature and certificate profile all pass (c2pa-ts). */
  valid: boolean;
  /** Active manifest's signer chains to a trust anchor at the signing time and is not revoked. */
  trusted: boolean;
  trust: TrustResult | null;
  /** Failure codes reported by the validator (e.g. `assertion.dataHash.mismatch`). */
  failures: string[];
  signer: string | null;
}

const IPTC = "http://cv.iptc.org/newscodes/digitalsourcetype/";
/** A store with more than this many manifests is read up to it (the largest public test file has 12). */
const MAX_MANIFESTS = 64;
const MAX_ASSERTIONS = 256;
const MAX_ACTIONS = 256;

export function assetFor(bytes: Uint8Array): Asset | null {
  if (JPEG.canRead(bytes)) return new JPEG(bytes);
  if (PNG.canRead(bytes)) return new PNG(bytes);
  if (WebP.canRead(bytes)) return new WebP(bytes);
  if (BMFF.canRead(bytes)) return new BMFF(bytes);
  return null;
}

export async function readC2pa(bytes: Uint8Array, trust: C2paTrust | readonly string[] = DEFAULT_TRUST): Promise<C2paSummary | null> {
  const trustConfig: C2paTrust = Array.isArray(trust) ? { ...DEFAULT_TRUST, fingerprints: trust } : (trust as C2paTrust);
  let asset: Asset | null;
  let jumbf: Uint8Array | undefined;
  try {
    asset = assetFor(bytes);
    jumbf = asset ? await asset.getManifestJUMBF() : undefined;
  } catch (err) {
    return malformed(`asset.malformed: ${String(err)}`);
  }
  if (!asset || !jumbf) return null;
  let root: SuperBox;
  try {
    // Nothing unchecked reaches c2pa-ts: a store nested deeper than the walker reads, or whose read
    // would copy more than the budget (a copy of each superbox's payload per level), is refused.
    checkJumbfBounds(jumbf);
    root = SuperBox.fromBuffer(jumbf as Uint8Array<ArrayBuffer>);
  } catch (err) {
    return malformed(`manifest.malformed: ${String(err)}`);
  }
  const raw = readStore(root);
  const summary: C2paSummary = {
    digital_source_types: [...new Set(raw.declarations.flatMap((d) => (d.source_type ? [d.source_type] : [])))],
    declarations: raw.declarations,
    claim_generator: raw.activeGenerator,
    manifests: raw.labels,
    valid: false,
    trusted: false,
    trust: null,
    failures: [],
    signer: null,
  };

  installTimestampReader();
  installStreamingDigest();
  let store: ManifestStore;
  try {
    store = ManifestStore.read(root);
  } catch (err) {
    summary.failures.push(`manifest.malformed: ${String(err)}`);
    return summary;
  }
  const manifest = store.getActiveManifest();
  summary.claim_generator = manifest?.claim?.claimGeneratorName ?? summary.claim_generator;
  let timestampTrusted = false;
  try {
    const result = await store.validate(asset);
    summary.valid = result.isValid;
    for (const entry of result.statusEntries) {
      if (!entry.success) summary.failures.push(entry.code);
      if (entry.code === "timeStamp.trusted") timestampTrusted = true;
    }
    // c2pa-ts 0.9.4 reports a token whose certificate fails the profile as untrusted and trusted both.
    if (summary.failures.some((code) => code.startsWith("timeStamp."))) timestampTrusted = false;
  } catch (err) {
    summary.failures.push(`validation.error: ${String(err)}`);
  }
  if (manifest?.signature?.signatureData && !coseEcdsaEncoding(manifest.signature.signatureData)) {
    summary.valid = false;
    summary.failures.push("claimSignature.mismatch");
  }
  const signature = manifest?.signature?.signatureData;
  const certificate = signature?.certificate;
  summary.signer = certificate?.subject ?? null;
  if (manifest && signature && certificate) {
    summary.trust = await assessTrust(manifest, raw.ocsp, timestampTrusted, trustConfig);
    summary.trusted = summary.valid && summary.trust.trusted;
  }
  return summary;
}

/** COSE's ECDSA signature sizes (RFC 9053 §2.1: r‖s), by COSE algorithm: ES256, ES384, ES512. */
const ECDSA_SIGNATURE_BYTES = new Map([
  [-7, 64],
  [-35, 96],
  [-36, 132],
]);

/**
 * False for an ECDSA signature not in COSE's r‖s form. c2pa-ts also accepts ASN.1 DER (and its own
 * signer writes it); the reference implementation refuses it (`signingCredential.invalid`,
 * `claimSignature.mismatch`), and so does this reader.
 */
function coseEcdsaEncoding(signature: { algorithm?: { coseIdentifier: number }; signature?: Uint8Array }): boolean {
  const expected = signature.algorithm ? ECDSA_SIGNATURE_BYTES.get(signature.algorithm.coseIdentifier) : undefined;
  return expected === undefined || signature.signature?.length === expected;
}

function malformed(failure: string): C2paSummary {
  return { digital_source_types: [], declarations: [], claim_generator: null, manifests: [], valid: false, trusted: false, trust: null, failures: [failure], signer: null };
}

async function assessTrust(manifest: Manifest, ocspDer: Uint8Array[], timestampTrusted: boolean, trust: C2paTrust): Promise<TrustResult> {
  const signature = manifest.signature!.signatureData;
  const chain = [signature.certificate!, ...signature.chainCertificates].map((c) => new Uint8Array(c.rawData));
  // The signing time counts only from a timestamp c2pa-ts verified whose TSA chains to a TSA anchor.
  let at = new Date();
  let timeSource: TrustResult["time_source"] = "now";
  const stamped = signature.timestamp;
  if (timestampTrusted && stamped) {
    const tsaChain = timestampCertificates(signature.timestampTokens[0]?.response);
    if (tsaChain.length > 0 && (await validateChain(tsaChain, stamped, trust, "tsa")).ok) {
      at = stamped;
      timeSource = "timestamp";
    }
  }
  const chainResult = await validateChain(chain, at, trust);
  const revocation = await stapledRevocation(ocspDer, chain);
  const revoked = revocation.status === "revoked";
  return {
    trusted: chainResult.ok && !revoked,
    detail: revoked ? revocation.detail : chainResult.detail,
    revocation: revocation.status,
    revocation_detail: revocation.detail,
    checked_at: at.toISOString(),
    time_source: timeSource,
  };
}

/** The TSA's certificates, its signer first (RFC 3161 token: CMS SignedData). */
function timestampCertificates(response: pkijs.TimeStampResp | undefined): Uint8Array[] {
  try {
    const token = response?.timeStampToken;
    if (!token) return [];
    const signed = new pkijs.SignedData({ schema: token.content });
    const certs = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
    // The certificate c2pa-ts verified the token with: the one the signer info names, else the first.
    const sid = signed.signerInfos[0]?.sid;
    const at = sid instanceof pkijs.IssuerAndSerialNumber ? certs.findIndex((c) => c.serialNumber.isEqual(sid.serialNumber) && c.issuer.isEqual(sid.issuer)) : 0;
    if (at < 0) return [];
    const ordered = [certs[at]!, ...certs.filter((_, i) => i !== at)];
    return ordered.slice(0, 10).map((c) => new Uint8Array(c.toSchema().toBER()));
  } catch {
    return [];
  }
}

interface RawStore {
  labels: string[];
  declarations: C2paDeclaration[];
  activeGenerator: string | null;
  /** Stapled OCSP responses for the active manifest's signer. */
  ocsp: Uint8Array[];
}

function label(box: unknown): string | undefined {
  return box instanceof SuperBox ? box.descriptionBox?.label : undefined;
}

function cbor(box: SuperBox): unknown {
  const content = box.contentBoxes[0];
  return content instanceof CBORBox ? content.content : undefined;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array) ? (value as Record<string, unknown>) : null;
}

function text(value: unknown): string | null {
  if (typeof value === "string") return value.slice(0, 200);
  const name = record(value)?.name;
  return typeof name === "string" ? name.slice(0, 200) : null;
}

export function normalizeSourceType(value: string): string {
  const v = value.trim().replace(/^https:/, "http:");
  return v.includes("/") || v.startsWith("c2pa.") ? v : `${IPTC}${v}`;
}

const ACTIONS = /^c2pa\.actions(\.v\d+)?(__\d+)?$/;
const INGREDIENT = /^c2pa\.ingredient(\.v\d+)?(__\d+)?$/;
const METADATA = /^(stds\.iptc(\.photo-metadata)?|c2pa\.metadata|stds\.metadata)(__\d+)?$/;

/**
 * Every manifest's declarations, straight from the store's boxes (C2PA 2.2 §11.3): the actions
 * assertions (v1 and v2: actions and templates), IPTC metadata assertions, and how each manifest is
 * referenced as an ingredient. Bounded by MAX_MANIFESTS/MAX_ASSERTIONS/MAX_ACTIONS.
 */
function readStore(root: SuperBox): RawStore {
  const manifests = root.contentBoxes.filter((b): b is SuperBox => b instanceof SuperBox).slice(-MAX_MANIFESTS);
  const labels = manifests.map((m) => label(m) ?? "unlabelled");
  const active = labels[labels.length - 1];
  const roles = new Map<string, string>();
  const declarations: C2paDeclaration[] = [];
  let activeGenerator: string | null = null;
  let ocsp: Uint8Array[] = [];
  manifests.forEach((manifest, index) => {
    const name = labels[index]!;
    const boxes = manifest.contentBoxes.filter((b): b is SuperBox => b instanceof SuperBox);
    const claim = record(cbor(boxes.find((b) => /^c2pa\.claim/.test(label(b) ?? "")) ?? new SuperBox()));
    const info = claim?.claim_generator_info;
    const generator = text(Array.isArray(info) ? info[0] : info) ?? text(claim?.claim_generator);
    if (name === active) activeGenerator = generator;
    const assertions = boxes.find((b) => label(b) === "c2pa.assertions")?.contentBoxes.filter((b): b is SuperBox => b instanceof SuperBox).slice(0, MAX_ASSERTIONS) ?? [];
    for (const assertion of assertions) {
      const assertionLabel = label(assertion) ?? "";
      const content = record(cbor(assertion));
      if (!content) continue;
      if (ACTIONS.test(assertionLabel)) {
        const entries = [...(Array.isArray(content.actions) ? content.actions : []), ...(Array.isArray(content.templates) ? content.templates : [])].slice(0, MAX_ACTIONS);
        for (const entry of entries) {
          const action = record(entry);
          if (!action) continue;
          const verb = text(action.action);
          const sourceType = typeof action.digitalSourceType === "string" ? normalizeSourceType(action.digitalSourceType) : null;
          const agent = text(action.softwareAgent) ?? (verb === "c2pa.created" ? generator : null);
          if (sourceType || verb === "c2pa.created") declarations.push({ manifest: name, role: "", assertion: assertionLabel.replace(/__\d+$/, ""), action: verb, source_type: sourceType, agent });
        }
      } else if (INGREDIENT.test(assertionLabel)) {
        const ref = record(content.activeManifest) ?? record(content.c2pa_manifest);
        const target = typeof ref?.url === "string" ? /\/c2pa\/([^/]+)/.exec(ref.url)?.[1] : undefined;
        if (target) roles.set(target, typeof content.relationship === "string" ? content.relationship.slice(0, 40) : "ingredient");
      } else if (METADATA.test(assertionLabel)) {
        for (const value of deepValues(content, "DigitalSourceType")) {
          declarations.push({ manifest: name, role: "", assertion: assertionLabel.replace(/__\d+$/, ""), action: null, source_type: normalizeSourceType(value), agent: null });
        }
      } else if (/^c2pa\.certificate-status(__\d+)?$/.test(assertionLabel) && name === active && Array.isArray(content.ocspVals)) {
        ocsp.push(...content.ocspVals.filter((v): v is Uint8Array => v instanceof Uint8Array).slice(0, 8));
      }
    }
    if (name === active) ocsp = [...stapledOcsp(boxes), ...ocsp];
  });
  for (const d of declarations) d.role = d.manifest === active ? "active" : (roles.get(d.manifest) ?? "ingredient");
  return { labels, declarations, activeGenerator, ocsp };
}

/** COSE_Sign1 unprotected header `rVals: {ocspVals: [bstr]}` (C2PA 2.x, 15.7 "Credential revocation"). */
function stapledOcsp(boxes: SuperBox[]): Uint8Array[] {
  const signature = boxes.find((b) => label(b) === "c2pa.signature");
  const cose = signature ? cbor(signature) : undefined;
  const unprotected = Array.isArray(cose) ? record(cose[1]) : null;
  const values = record(unprotected?.rVals)?.ocspVals;
  return Array.isArray(values) ? values.filter((v): v is Uint8Array => v instanceof Uint8Array).slice(0, 8) : [];
}

/** Values of keys ending in `suffix` (any namespace prefix), at most 6 levels down and 32 values. */
function deepValues(value: unknown, suffix: string, depth = 0, out: string[] = []): string[] {
  if (depth > 6 || out.length >= 32 || typeof value !== "object" || value === null || value instanceof Uint8Array) return out;
  for (const [k, v] of Object.entries(value).slice(0, 256)) {
    if (k.endsWith(suffix) && typeof v === "string") out.push(v);
    else deepValues(v, suffix, depth + 1, out);
  }
  return out;
}

let timestampReaderInstalled = false;

/**
 * c2pa-ts 0.9 parses every `sigTst`/`sigTst2` token as an RFC 3161 TimeStampResp. C2PA 2.x
 * `sigTst2` carries the TimeStampToken itself (a CMS ContentInfo), so c2pa-ts refused the whole
 * store as "Malformed timestamp": every OpenAI (ChatGPT, gpt-image) and current Adobe file read as
 * no manifest at all. A token that is not a TimeStampResp is read as a granted response carrying
 * it; c2pa-ts then verifies it as it does any other.
 */
function installTimestampReader(): void {
  if (timestampReaderInstalled) return;
  timestampReaderInstalled = true;
  const target = CoseSignature as unknown as { readTimestamps: (container: unknown, version: number) => Iterable<unknown> };
  target.readTimestamps = function* (container: unknown, version: number) {
    const tokens = record(container)?.tstTokens;
    if (!Array.isArray(tokens)) return;
    for (const token of tokens.slice(0, 4)) {
      const val = record(token)?.val;
      if (!(val instanceof Uint8Array)) throw new Error("Malformed timestamp");
      let response: pkijs.TimeStampResp;
      try {
        response = pkijs.TimeStampResp.fromBER(val);
      } catch {
        response = new pkijs.TimeStampResp({
          status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
          timeStampToken: pkijs.ContentInfo.fromBER(val),
        });
      }
      yield { version, response };
    }
  };
}
