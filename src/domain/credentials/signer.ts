import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { CoseAlgorithmIdentifier, type Signer } from "@trustnxt/c2pa-ts/cose";
import { ConfigError } from "../../env";
import { installStreamingDigest } from "../../analysis/c2pa-digest";
import type { C2paSignerConfig } from "../../lib/c2pa-signer-config";

x509.cryptoProvider.set(crypto);
// embedCredentials hashes the image through c2pa-ts's provider: without an image-sized copy.
installStreamingDigest();

/**
 * ES256 with the signature as COSE requires it (RFC 9053 §2.1: r‖s, 64 bytes), which is what
 * WebCrypto returns. c2pa-ts 0.9's LocalSigner re-encodes it as ASN.1 DER, which the reference
 * implementation (c2pa-rs) refuses: `signingCredential.invalid`, "EC signature should be in P1363
 * r|s format" (found by test/integration/content-credentials.test.ts).
 */
export class Es256Signer implements Signer {
  readonly algorithm = CoseAlgorithmIdentifier.ES256;
  constructor(
    private readonly key: CryptoKey,
    readonly certificate: x509.X509Certificate,
    readonly chainCertificates: x509.X509Certificate[],
  ) {}
  async sign(payload: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, this.key, payload));
  }
}

export interface CredentialsSigner {
  signer: Signer;
  /** The signing certificate's subject (the deployment's name, as its CA certified it). */
  subject: string;
}

const imported = new Map<string, Promise<CredentialsSigner>>();

/**
 * The configured key and chain as a c2pa-ts signer, once per configuration per isolate. A key that
 * is not the certificate's, or a certificate outside its validity, is a ConfigError (500, logged):
 * nothing is signed that a validator would refuse.
 */
export function credentialsSigner(config: C2paSignerConfig, kid: string, now = Date.now()): Promise<CredentialsSigner> {
  let signer = imported.get(kid);
  if (!signer) {
    signer = importSigner(config, now);
    imported.set(kid, signer);
    signer.catch(() => imported.delete(kid));
  }
  return signer;
}

async function importSigner(config: C2paSignerConfig, now: number): Promise<CredentialsSigner> {
  let certs: x509.X509Certificate[];
  try {
    certs = config.certs.map((der) => new x509.X509Certificate(der));
  } catch {
    throw new ConfigError("C2PA_SIGNING_CERTS holds a certificate that does not parse");
  }
  const [leaf, ...chain] = certs;
  if (!leaf) throw new ConfigError("C2PA_SIGNING_CERTS is empty");
  if (leaf.notBefore.getTime() > now || leaf.notAfter.getTime() <= now) throw new ConfigError("the C2PA signing certificate is not valid now");
  const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
  let privateKey: CryptoKey;
  try {
    privateKey = await crypto.subtle.importKey("pkcs8", config.key, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  } catch {
    throw new ConfigError("C2PA_SIGNING_KEY does not import as an ECDSA P-256 key");
  }
  // The key must be the certificate's: sign a probe and verify it with the certificate's public key.
  const probe = new TextEncoder().encode("c2pa-signer-probe");
  const signature = await crypto.subtle.sign(algorithm, privateKey, probe);
  const publicKey = await leaf.publicKey.export(algorithm, ["verify"]).catch(() => null);
  if (!publicKey || !(await crypto.subtle.verify(algorithm, publicKey, signature, probe))) {
    throw new ConfigError("C2PA_SIGNING_KEY is not the key of the first certificate in C2PA_SIGNING_CERTS");
  }
  return { signer: new Es256Signer(privateKey, leaf, chain), subject: leaf.subject };
}
