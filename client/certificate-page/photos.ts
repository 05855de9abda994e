import { captureWithDigest, sha256Hex, type CertificatePayload, type CertifiedCapture } from "../../clients/typescript/src/certificate";

/** Photos larger than this are not read (the service takes at most 25 MB per file). */
export const MAX_PHOTO_BYTES = 64 * 1024 * 1024;

export type PhotoCheck =
  | { file: string; outcome: "match"; capture: CertifiedCapture; sha256: string }
  | { file: string; outcome: "not_in_certificate"; sha256: string }
  | { file: string; outcome: "too_large" };

/** Hashes a dropped or chosen file in this browser (nothing leaves it) and finds its capture in the certificate. */
export async function checkPhoto(file: File, payload: CertificatePayload): Promise<PhotoCheck> {
  if (file.size > MAX_PHOTO_BYTES) return { file: file.name, outcome: "too_large" };
  const sha256 = await sha256Hex(await file.arrayBuffer());
  const capture = captureWithDigest(payload, sha256);
  return capture ? { file: file.name, outcome: "match", capture, sha256 } : { file: file.name, outcome: "not_in_certificate", sha256 };
}
