import "reflect-metadata";
import type { X509Certificate } from "@peculiar/x509";
import { BMFF, JPEG, PNG, type Asset } from "@trustnxt/c2pa-ts/asset";
import { SuperBox } from "@trustnxt/c2pa-ts/jumbf";
import { ManifestStore } from "@trustnxt/c2pa-ts/manifest";
import { toHex } from "../lib/crypto";

/**
 * C2PA manifest summary, read with c2pa-ts (pure TypeScript, runs in workerd; the reference
 * c2pa-web/c2pa-wasm readers do not: they need Web Workers / FileReaderSync).
 *
 * c2pa-ts 0.9 validates the hard binding, the claim signature and the certificate's profile, but
 * has no chain-of-trust: `trusted` is decided here against a configured list of SHA-256
 * fingerprints (signer certificate, or an issuing CA that actually signed it).
 */
export interface C2paSummary {
  /** Every action's `digitalSourceType` in the active manifest (http form). */
  digital_source_types: string[];
  claim_generator: string | null;
  /** Manifest structurally valid: binding hash, claim signature and certificate profile all pass. */
  valid: boolean;
  /** Signed by (or under) a certificate in the configured trust list. */
  trusted: boolean;
  /** Failure codes reported by the validator (e.g. `assertion.dataHash.mismatch`). */
  failures: string[];
  signer: string | null;
}

export async function readC2pa(bytes: Uint8Array, trustedFingerprints: readonly string[]): Promise<C2paSummary | null> {
  let asset: Asset;
  if (JPEG.canRead(bytes)) asset = new JPEG(bytes);
  else if (PNG.canRead(bytes)) asset = new PNG(bytes);
  else if (BMFF.canRead(bytes)) asset = new BMFF(bytes);
  else return null;
  const jumbf = await asset.getManifestJUMBF();
  if (!jumbf) return null;
  let store: ManifestStore;
  try {
    checkJumbfBoxes(jumbf);
    store = ManifestStore.read(SuperBox.fromBuffer(jumbf as Uint8Array<ArrayBuffer>));
  } catch (err) {
    return { digital_source_types: [], claim_generator: null, valid: false, trusted: false, failures: [`manifest.malformed: ${String(err)}`], signer: null };
  }
  const manifest = store.getActiveManifest();
  const types = new Set<string>();
  for (const assertion of manifest?.assertions?.getActionAssertions() ?? []) {
    for (const action of assertion.actions) if (action.digitalSourceType) types.add(String(action.digitalSourceType).replace(/^https:/, "http:"));
  }
  let valid = false;
  const failures: string[] = [];
  try {
    const result = await store.validate(asset);
    valid = result.isValid;
    for (const entry of result.statusEntries) if (!entry.success) failures.push(entry.code);
  } catch (err) {
    failures.push(`validation.error: ${String(err)}`);
  }
  const signature = manifest?.signature?.signatureData;
  const certificate = signature?.certificate;
  const trusted = valid && certificate ? await isTrusted(certificate, signature.chainCertificates, trustedFingerprints) : false;
  return {
    digital_source_types: [...types],
    claim_generator: manifest?.claim?.claimGeneratorName ?? null,
    valid,
    trusted,
    failures,
    signer: certificate?.subject ?? null,
  };
}

/**
 * Every JUMBF box (ISO/IEC 19566-5: LBox, TBox, XLBox when LBox is 1) lies within its superbox and
 * the manifest. c2pa-ts sizes each box's buffer by the length it states before reading it: a manifest
 * whose box claimed 3.1 GB took workerd 3 s and that memory to refuse (test/helpers/fuzz.ts, c2pa
 * target, run 2611, input 81), where Node refuses the array at once.
 */
function checkJumbfBoxes(bytes: Uint8Array, start = 0, end = bytes.length, depth = 0): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = start; at < end; ) {
    if (at + 8 > end) throw new Error(`JUMBF box at ${at} is cut short`);
    let length = view.getUint32(at);
    let header = 8;
    if (length === 1) {
      if (at + 16 > end) throw new Error(`JUMBF box at ${at} is cut short`);
      length = view.getUint32(at + 8) * 2 ** 32 + view.getUint32(at + 12);
      header = 16;
    } else if (length === 0) length = end - at;
    if (length < header || at + length > end) throw new Error(`JUMBF box at ${at} states ${length} bytes, beyond its superbox`);
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    if (type === "jumb" && depth < 16) checkJumbfBoxes(bytes, at + header, at + length, depth + 1);
    at += length;
  }
}

async function fingerprint(certificate: X509Certificate): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", certificate.rawData));
}

async function isTrusted(signer: X509Certificate, chain: X509Certificate[], trusted: readonly string[]): Promise<boolean> {
  if (trusted.length === 0) return false;
  const wanted = new Set(trusted.map((f) => f.toLowerCase().replace(/[^0-9a-f]/g, "")));
  if (wanted.has(await fingerprint(signer))) return true;
  for (const issuer of chain) {
    if (!wanted.has(await fingerprint(issuer))) continue;
    try {
      if (await signer.verify({ publicKey: issuer.publicKey, signatureOnly: true })) return true;
    } catch {
      // A certificate that does not verify against the listed issuer is simply not trusted.
    }
  }
  return false;
}
