import "reflect-metadata";
import type { Asset } from "@trustnxt/c2pa-ts/asset";
import { SuperBox } from "@trustnxt/c2pa-ts/jumbf";
import { ManifestStore, type HashedURI } from "@trustnxt/c2pa-ts/manifest";
import { checkJumbfBounds, JumbfBoxError, STORE_PARSE_BUDGET_BYTES } from "../../analysis/jumbf-boxes";
export { STORE_PARSE_BUDGET_BYTES };

/*
 * The C2PA manifest store a received file arrived with, kept whole while the deployment's manifest
 * is added to it (C2PA 2.x: a new manifest appended to the store becomes its active manifest; the
 * earlier ones stay, unaltered, and the new one names the previous active manifest as its parent
 * ingredient). c2pa-ts reads a store (ManifestStore.read) but writes a read manifest back by
 * re-encoding what it parsed (JSON and CBOR boxes, description boxes), which need not be the bytes
 * that were signed; so the store's bytes are kept as they arrived and the new manifest's box, which
 * c2pa-ts builds and signs, is appended to them (appendManifest).
 */

/** A store that cannot be extended in place: c2pa-ts cannot read it (or not within the parse budget), it has no active manifest, or its box length is not its size. */
export class UnextendableStoreError extends Error {
  override name = "UnextendableStoreError";
}

export interface ArrivedStore {
  /** The manifest store box exactly as it arrived (header included). */
  bytes: Uint8Array;
  header: StoreHeader;
  /** How many manifests it holds. */
  manifestCount: number;
  /** The label of its active (last) manifest. */
  activeLabel: string;
  /** The active manifest's signer (certificate subject), when c2pa-ts reads one. */
  activeSigner: string | null;
  /** Hashed URIs to the active manifest's box and to its claim signature box, over the bytes as they arrived. */
  activeManifest: HashedURI;
  claimSignature: HashedURI;
  /** The active manifest validated against the file as it arrived (c2pa-ts), as C2PA's validation-results map states it. */
  validationResults: { activeManifest: { success: StatusEntry[]; informational: StatusEntry[]; failure: StatusEntry[] } };
}

type StatusEntry = { code: string; url?: string; explanation?: string };

const SIGNATURE_LABEL = "c2pa.signature";
const UNANCHORED_TRUST_CODES = new Set(["signingCredential.trusted", "timeStamp.trusted"]);

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** The store box's header: its length field's offset and width (8 bytes of LBox+TBox, or 16 with an XLBox). */
interface StoreHeader {
  lengthAt: 0 | 8;
  headerLength: 8 | 16;
}

/** The header of a `jumb` box spanning all of `bytes` (a length of 0 means "to the end"); throws otherwise. */
function storeHeader(bytes: Uint8Array): StoreHeader {
  if (bytes.length < 8 || String.fromCharCode(...bytes.subarray(4, 8)) !== "jumb") throw new UnextendableStoreError("the manifest store is not a jumb box");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(0);
  if (length === 1 && bytes.length >= 16 && view.getBigUint64(8) === BigInt(bytes.length)) return { lengthAt: 8, headerLength: 16 };
  if (length === 0 || length === bytes.length) return { lengthAt: 0, headerLength: 8 };
  throw new UnextendableStoreError("the manifest store's box length is not the length of its bytes");
}

/** Throws UnextendableStoreError unless the store passes the bounds the analysis reads it within (checkJumbfBounds). */
function checkBoxes(bytes: Uint8Array): void {
  try {
    checkJumbfBounds(bytes);
  } catch (err) {
    if (err instanceof JumbfBoxError) throw new UnextendableStoreError(err.message);
    throw err;
  }
}

/**
 * Reads the store a file arrived with. The hashes are over the boxes' payloads as they arrived
 * (c2pa-ts keeps each superbox's raw content when it reads one), as C2PA hashes a JUMBF box for a
 * hashed URI.
 */
export async function readArrivedStore(asset: Asset, jumbf: Uint8Array): Promise<ArrivedStore> {
  const bytes = jumbf.slice();
  const header = storeHeader(bytes);
  checkBoxes(bytes);
  let store: ManifestStore;
  try {
    store = ManifestStore.read(SuperBox.fromBuffer(bytes));
  } catch (err) {
    throw new UnextendableStoreError(`c2pa-ts cannot read the manifest store: ${String(err)}`);
  }
  const active = store.getActiveManifest();
  const manifestPayload = active?.sourceBox?.rawContent;
  const signatureBox = active?.sourceBox?.contentBoxes.find((box): box is SuperBox => box instanceof SuperBox && box.descriptionBox?.label === SIGNATURE_LABEL);
  if (!active?.label || !manifestPayload || !signatureBox?.rawContent) throw new UnextendableStoreError("the manifest store has no active manifest with a claim signature");

  const validationResults: ArrivedStore["validationResults"] = { activeManifest: { success: [], informational: [], failure: [] } };
  try {
    const result = await store.validate(asset);
    for (const entry of result.statusEntries) {
      // c2pa-ts says "trusted" of a well-formed certificate (and timestamp) it checked against no trust list: not a trust verdict to sign.
      if (UNANCHORED_TRUST_CODES.has(entry.code)) continue;
      const status: StatusEntry = { code: entry.code, ...(entry.url ? { url: entry.url } : {}), ...(entry.explanation ? { explanation: entry.explanation } : {}) };
      validationResults.activeManifest[entry.success ? "success" : "failure"].push(status);
    }
  } catch (err) {
    validationResults.activeManifest.failure.push({ code: "general.error", explanation: String(err) });
  }
  const uri = `self#jumbf=/c2pa/${active.label}`;
  return {
    bytes,
    header,
    manifestCount: store.manifests.length,
    activeLabel: active.label,
    activeSigner: active.signature?.signatureData.certificate?.subject ?? null,
    activeManifest: { uri, hash: await sha256(manifestPayload), algorithm: "SHA-256" },
    claimSignature: { uri: `${uri}/${SIGNATURE_LABEL}`, hash: await sha256(signatureBox.rawContent), algorithm: "SHA-256" },
    validationResults,
  };
}

/** The size of the store once `manifestBoxLength` bytes of manifest box are appended to it. */
export function extendedStoreLength(store: ArrivedStore, manifestBoxLength: number): number {
  const length = store.bytes.length + manifestBoxLength;
  if (store.header.headerLength === 8 && length > 0xffffffff) throw new UnextendableStoreError("the manifest store would outgrow a 32-bit box length");
  return length;
}

/** The arrived store's bytes, unchanged but for the length in its header, followed by `manifestBox`. */
export function appendManifest(store: ArrivedStore, manifestBox: Uint8Array): Uint8Array {
  const out = new Uint8Array(extendedStoreLength(store, manifestBox.length));
  out.set(store.bytes);
  out.set(manifestBox, store.bytes.length);
  const view = new DataView(out.buffer);
  if (store.header.lengthAt === 8) view.setBigUint64(8, BigInt(out.length));
  else view.setUint32(0, out.length);
  return out;
}
