import type { Asset } from "@trustnxt/c2pa-ts/asset";

/**
 * WebP as a c2pa-ts asset: the manifest store sits in a RIFF chunk `C2PA` (C2PA 2.x, "Embedding
 * manifests into RIFF-based formats"), the hard binding excludes that chunk's header and payload.
 * c2pa-ts 0.9 reads JPEG, PNG, BMFF and MP3 only. Writing (test fixtures, signing) puts
 * the chunk last and fixes the RIFF size, so a hash over everything else stays stable.
 */
export class WebP implements Asset {
  readonly mimeType = "image/webp";
  private data: Uint8Array;
  /** Offset of the `C2PA` chunk's header and the payload length it states, when there is one. */
  private manifest: { at: number; length: number } | null = null;

  /** More chunks than any WebP has (VP8X, ICCP, ANIM + frames, EXIF, XMP): a file past it is refused. */
  static readonly MAX_CHUNKS = 4096;

  constructor(data: Uint8Array) {
    this.data = data;
    this.manifest = WebP.findManifest(data);
  }

  static canRead(buf: Uint8Array): boolean {
    return buf.length >= 12 && ascii(buf, 0) === "RIFF" && ascii(buf, 8) === "WEBP";
  }

  /** Every chunk lies within the RIFF body; the loop advances at least 8 bytes a chunk and stops at MAX_CHUNKS. */
  private static findManifest(data: Uint8Array): { at: number; length: number } | null {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const end = Math.min(data.length, 8 + view.getUint32(4, true));
    let found: { at: number; length: number } | null = null;
    let chunks = 0;
    for (let at = 12; at + 8 <= end; ) {
      if (++chunks > WebP.MAX_CHUNKS) throw new Error(`WebP: more than ${WebP.MAX_CHUNKS} chunks`);
      const length = view.getUint32(at + 4, true);
      if (at + 8 + length > end) throw new Error(`WebP chunk at ${at} states ${length} bytes, beyond the file`);
      if (ascii(data, at) === "C2PA") {
        if (found) throw new Error("WebP: more than one C2PA chunk");
        found = { at, length };
      }
      at += 8 + length + (length & 1);
    }
    return found;
  }

  getDataLength(): number {
    return this.data.length;
  }

  async getDataRange(start?: number, length?: number): Promise<Uint8Array> {
    if (start === undefined) return this.data;
    return this.data.subarray(start, length === undefined ? undefined : start + length);
  }

  getManifestJUMBF(): Uint8Array | undefined {
    if (!this.manifest) return undefined;
    return this.data.subarray(this.manifest.at + 8, this.manifest.at + 8 + this.manifest.length);
  }

  dumpInfo(): string {
    return `WebP, ${this.data.length} bytes${this.manifest ? `, C2PA chunk at ${this.manifest.at} (${this.manifest.length} bytes)` : ""}`;
  }

  getHashExclusionRange(): { start: number; length: number } {
    if (!this.manifest) throw new Error("WebP: no C2PA chunk");
    // The chunk's header and payload; an odd payload's pad byte is hashed, as the reference
    // implementation (c2pa-rs) expects: excluding it too fails its `assertion.dataHash.mismatch`.
    return { start: this.manifest.at, length: 8 + this.manifest.length };
  }

  /** Drops any C2PA chunk and appends one of `length` bytes (zeroed) at the end, RIFF size updated. */
  async ensureManifestSpace(length: number): Promise<void> {
    const body = this.manifest
      ? concat(this.data.subarray(0, this.manifest.at), this.data.subarray(this.manifest.at + 8 + this.manifest.length + (this.manifest.length & 1)))
      : this.data;
    const out = new Uint8Array(body.length + 8 + length + (length & 1));
    out.set(body);
    const view = new DataView(out.buffer);
    out.set([0x43, 0x32, 0x50, 0x41], body.length); // "C2PA"
    view.setUint32(body.length + 4, length, true);
    view.setUint32(4, out.length - 8, true);
    this.data = out;
    this.manifest = { at: body.length, length };
  }

  async writeManifestJUMBF(jumbf: Uint8Array): Promise<void> {
    if (!this.manifest || this.manifest.length !== jumbf.length) throw new Error("WebP: manifest space does not match the JUMBF");
    this.data.set(jumbf, this.manifest.at + 8);
  }
}

function ascii(buf: Uint8Array, at: number): string {
  return String.fromCharCode(buf[at]!, buf[at + 1]!, buf[at + 2]!, buf[at + 3]!);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
