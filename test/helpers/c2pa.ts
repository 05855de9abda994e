import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { JPEG } from "@trustnxt/c2pa-ts/asset";
import { CoseAlgorithmIdentifier, LocalSigner } from "@trustnxt/c2pa-ts/cose";
import { ActionAssertion, ActionType, DataHashAssertion, DigitalSourceType, ManifestStore } from "@trustnxt/c2pa-ts/manifest";

x509.cryptoProvider.set(crypto);

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

export interface TestSigner {
  signer: LocalSigner;
  /** SHA-256 fingerprints of the signing certificate and of its CA (hex). */
  leafFingerprint: string;
  caFingerprint: string;
}

async function fingerprint(cert: x509.X509Certificate): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", cert.rawData))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A test CA and a C2PA-profile signing certificate under it (key usage digitalSignature, EKU
 * emailProtection, authority key identifier), made at test time with WebCrypto P-256.
 */
export async function makeTestSigner(name = "Test Capture App"): Promise<TestSigner> {
  const now = Date.now();
  const notBefore = new Date(now - 24 * 3600_000);
  const notAfter = new Date(now + 365 * 24 * 3600_000);
  const caKeys = (await crypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: `CN=${name} Test CA`,
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const leafKeys = (await crypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: `CN=${name}`,
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection]),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
    ],
  });
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", leafKeys.privateKey)) as ArrayBuffer);
  return {
    signer: new LocalSigner(pkcs8, CoseAlgorithmIdentifier.ES256, leaf, [ca]),
    leafFingerprint: await fingerprint(leaf),
    caFingerprint: await fingerprint(ca),
  };
}

/** Embeds a signed C2PA manifest (a `c2pa.created` action with `sourceType`, plus the data hash). */
export async function signJpeg(jpegBytes: Uint8Array, signer: TestSigner, sourceType: DigitalSourceType): Promise<Uint8Array> {
  const asset = new JPEG(jpegBytes);
  const store = new ManifestStore();
  const manifest = store.createManifest({ assetFormat: "image/jpeg", instanceID: `xmp:iid:${crypto.randomUUID()}`, defaultHashAlgorithm: "SHA-256", signer: signer.signer });
  const actions = new ActionAssertion();
  actions.actions = [{ action: ActionType.C2paCreated, digitalSourceType: sourceType }];
  manifest.addAssertion(actions);
  const dataHash = DataHashAssertion.create("SHA-256");
  manifest.addAssertion(dataHash);
  await asset.ensureManifestSpace(store.measureSize());
  await dataHash.updateWithAsset(asset);
  await manifest.sign(signer.signer);
  await asset.writeManifestJUMBF(store.getBytes());
  return asset.getDataRange();
}

export { DigitalSourceType };
