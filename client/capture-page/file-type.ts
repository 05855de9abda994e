import { sniffMediaType, SNIFF_HEAD_BYTES } from "../../src/model/evidence/media-type";

/**
 * What a picked file is, read from its first bytes as the server reads them, never from its name or
 * the browser's guess (a JPEG saved as .png is a JPEG). "" for anything the server would not take.
 */
export async function fileMediaType(file: Blob): Promise<string> {
  return sniffMediaType(new Uint8Array(await file.slice(0, SNIFF_HEAD_BYTES).arrayBuffer())) ?? "";
}
