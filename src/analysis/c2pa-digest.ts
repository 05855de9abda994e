import { Crypto as C2paCrypto, type CryptoProvider } from "@trustnxt/c2pa-ts/crypto";

let installed = false;

/**
 * c2pa-ts 0.9.4's WebCrypto provider hashes a data-hash binding by concatenating every hashed range
 * into one new buffer before `crypto.subtle.digest`: an image-sized copy, in signing
 * (domain/credentials) and in validating (readC2pa). workerd's `crypto.DigestStream` hashes the
 * ranges as they are written instead (bench/credentials.ts measures the difference). Elsewhere
 * (Node, for scripts) c2pa-ts's own provider stays.
 */
export function installStreamingDigest(): void {
  if (installed) return;
  installed = true;
  const Stream = (crypto as Partial<Pick<Crypto, "DigestStream">>).DigestStream;
  if (typeof Stream !== "function") return;
  const base = C2paCrypto.provider;
  const provider: CryptoProvider = {
    digest: (data, algorithm) => base.digest(data, algorithm),
    verifySignature: (payload, signature, publicKey, algorithm) => base.verifySignature(payload, signature, publicKey, algorithm),
    sign: (payload, privateKey, algorithm) => base.sign(payload, privateKey, algorithm),
    getRandomValues: (count) => base.getRandomValues(count),
    streamingDigest(algorithm) {
      const stream = new Stream(algorithm);
      const writer = stream.getWriter();
      const writes: Promise<void>[] = [];
      return {
        update(data) {
          const write = writer.write(data);
          // Awaited in final(); a write that fails before then is not an unhandled rejection.
          write.catch(() => undefined);
          writes.push(write);
        },
        async final() {
          await Promise.all(writes);
          await writer.close();
          return new Uint8Array(await stream.digest);
        },
      };
    },
  };
  C2paCrypto.provider = provider;
}
