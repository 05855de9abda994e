import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { BMFF, JPEG, PNG, type Asset } from "@trustnxt/c2pa-ts/asset";
import { CoseAlgorithmIdentifier, LocalSigner, TimestampVersion, type Signer } from "@trustnxt/c2pa-ts/cose";
import { CBORBox } from "@trustnxt/c2pa-ts/jumbf";
import {
  ActionAssertion,
  ActionType,
  Assertion,
  DataHashAssertion,
  DigitalSourceType,
  IngredientAssertion,
  ManifestStore,
  RelationshipType,
} from "@trustnxt/c2pa-ts/manifest";
import type { TimestampProvider } from "@trustnxt/c2pa-ts/rfc3161";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { WebP } from "../../src/analysis/c2pa-webp";
import { Es256Signer } from "../../src/domain/credentials/signer";

x509.cryptoProvider.set(crypto);

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY = 24 * 3600_000;

export interface TestSigner {
  signer: Signer;
  /** SHA-256 fingerprints of the signing certificate and of its CA (hex). */
  leafFingerprint: string;
  caFingerprint: string;
  /** The root CA, PEM (an anchor a deployment would configure). */
  rootPem: string;
  leaf: x509.X509Certificate;
  leafKey: CryptoKey;
  /** The certificate that issued the leaf (the intermediate when there is one) and its key. */
  issuer: x509.X509Certificate;
  issuerKey: CryptoKey;
}

export interface SignerOptions {
  /** A root → intermediate → signer chain; the manifest carries the signer and the intermediate. */
  intermediate?: boolean;
  /** The signer certificate's validity ended a year ago (it ran from two years ago). */
  expired?: boolean;
  /**
   * Sign as c2pa-ts 0.9's LocalSigner does: the ECDSA signature re-encoded as ASN.1 DER, which COSE
   * does not allow (RFC 9053 §2.1: r‖s) and the reference implementation refuses. Default: r‖s.
   */
  derSignature?: boolean;
}

async function fingerprint(cert: x509.X509Certificate): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", cert.rawData))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function makeCa(name: string, issuer: { cert: x509.X509Certificate; key: CryptoKey } | null, notBefore: Date, notAfter: Date) {
  const keys = (await crypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const extensions = [
    new x509.BasicConstraintsExtension(true, issuer ? 0 : undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ...(issuer ? [await x509.AuthorityKeyIdentifierExtension.create(issuer.cert)] : []),
  ];
  const cert = issuer
    ? await x509.X509CertificateGenerator.create({ serialNumber: "03", subject: `CN=${name}`, issuer: issuer.cert.subject, notBefore, notAfter, signingAlgorithm: ALG, publicKey: keys.publicKey, signingKey: issuer.key, extensions })
    : await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: "01", name: `CN=${name}`, notBefore, notAfter, signingAlgorithm: ALG, keys, extensions });
  return { cert, key: keys.privateKey };
}

/**
 * A test CA (and, asked, an intermediate under it) and a C2PA-profile signing certificate (key usage
 * digitalSignature, EKU emailProtection, authority key identifier), made at test time with WebCrypto P-256.
 */
export async function makeTestSigner(name = "Test Capture App", options: SignerOptions = {}): Promise<TestSigner> {
  const now = Date.now();
  const root = await makeCa(`${name} Test CA`, null, new Date(now - 3 * 365 * DAY), new Date(now + 5 * 365 * DAY));
  const issuer = options.intermediate ? await makeCa(`${name} Intermediate CA`, root, new Date(now - 2 * 365 * DAY), new Date(now + 4 * 365 * DAY)) : root;
  const leafKeys = (await crypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: `CN=${name}`,
    issuer: issuer.cert.subject,
    notBefore: options.expired ? new Date(now - 2 * 365 * DAY) : new Date(now - DAY),
    notAfter: options.expired ? new Date(now - 365 * DAY) : new Date(now + 365 * DAY),
    signingAlgorithm: ALG,
    publicKey: leafKeys.publicKey,
    signingKey: issuer.key,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection]),
      await x509.AuthorityKeyIdentifierExtension.create(issuer.cert),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
    ],
  });
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", leafKeys.privateKey)) as ArrayBuffer);
  const chain = options.intermediate ? [issuer.cert] : [root.cert];
  return {
    signer: options.derSignature ? new LocalSigner(pkcs8, CoseAlgorithmIdentifier.ES256, leaf, chain) : new Es256Signer(leafKeys.privateKey, leaf, chain),
    leafFingerprint: await fingerprint(leaf),
    caFingerprint: await fingerprint(root.cert),
    rootPem: root.cert.toString("pem"),
    leaf,
    leafKey: leafKeys.privateKey,
    issuer: issuer.cert,
    issuerKey: issuer.key,
  };
}

/**
 * A signer certificate that names `real`'s issuer as its issuer (and carries that issuer in its
 * chain) but was signed by a key of its own: what anyone can make from a public manifest.
 */
export async function forgedSigner(real: TestSigner, name = "Forged Camera"): Promise<TestSigner> {
  const forger = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]) as CryptoKeyPair;
  const leafKeys = (await crypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const now = Date.now();
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "66",
    subject: `CN=${name}`,
    issuer: real.issuer.subject,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 365 * DAY),
    signingAlgorithm: ALG,
    publicKey: leafKeys.publicKey,
    signingKey: forger.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection]),
      await x509.AuthorityKeyIdentifierExtension.create(real.issuer),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
    ],
  });
  return { ...real, signer: new Es256Signer(leafKeys.privateKey, leaf, [real.issuer]), leafFingerprint: await fingerprint(leaf), leaf, leafKey: leafKeys.privateKey };
}

/** `c2pa.certificate-status` (C2PA 2.x): stapled OCSP responses about the signer. */
class CertificateStatusAssertion extends Assertion {
  constructor(private readonly ocspVals: Uint8Array[]) {
    super();
    this.label = "c2pa.certificate-status";
    this.uuid = new Uint8Array([0x63, 0x62, 0x6f, 0x72, 0x00, 0x11, 0x00, 0x10, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71]);
  }
  readContentFromJUMBF(): void {}
  generateJUMBFBoxForContent() {
    const box = new CBORBox();
    box.content = { ocspVals: this.ocspVals };
    return box;
  }
}

/** Who signs an OCSP response: its certificate (carried in the response) and key. */
export interface OcspResponder {
  cert: x509.X509Certificate;
  key: CryptoKey;
}

/**
 * A certificate for `name` issued by the signer's issuer (or, with `issuer`, by that one), key usage
 * digitalSignature, with the given extended key usages: id-kp-OCSPSigning makes it an OCSP responder
 * the issuer delegated to (RFC 6960 4.2.2.2).
 */
export async function issuedBy(issuer: OcspResponder, name: string, ekus: string[], notBefore = new Date(Date.now() - DAY), notAfter = new Date(Date.now() + 365 * DAY), keyUsageCritical = true): Promise<OcspResponder> {
  const keys = (await crypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: "0a",
    subject: `CN=${name}`,
    issuer: issuer.cert.subject,
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: issuer.key,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, keyUsageCritical),
      new x509.ExtendedKeyUsageExtension(ekus, true),
      await x509.AuthorityKeyIdentifierExtension.create(issuer.cert),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, key: keys.privateKey };
}

/** A self-signed certificate and key nobody in the signer's chain issued. */
export async function unrelatedResponder(name: string): Promise<OcspResponder> {
  const keys = (await crypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "0b",
    name: `CN=${name}`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 365 * DAY),
    signingAlgorithm: ALG,
    keys,
    extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.ocspSigning], true)],
  });
  return { cert, key: keys.privateKey };
}

/** An OCSP response about the signer saying revoked (or good), signed by its issuer unless `by` is given. */
export async function ocspResponse(signer: TestSigner, status: "revoked" | "good", by?: OcspResponder): Promise<Uint8Array> {
  const leaf = pkijs.Certificate.fromBER(signer.leaf.rawData);
  const issuer = pkijs.Certificate.fromBER(signer.issuer.rawData);
  const responder = by ? pkijs.Certificate.fromBER(by.cert.rawData) : issuer;
  const certID = new pkijs.CertID();
  await certID.createForCertificate(leaf, { hashAlgorithm: "SHA-256", issuerCertificate: issuer });
  const now = new Date();
  const certStatus =
    status === "revoked"
      ? new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value: [new asn1js.GeneralizedTime({ valueDate: new Date(now.getTime() - DAY) })] })
      : new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 } });
  const basic = new pkijs.BasicOCSPResponse();
  basic.tbsResponseData.responderID = responder.subject;
  basic.tbsResponseData.producedAt = now;
  basic.tbsResponseData.responses.push(new pkijs.SingleResponse({ certID, certStatus, thisUpdate: now }));
  basic.certs = [responder];
  await basic.sign(by?.key ?? signer.issuerKey, "SHA-256");
  const response = new pkijs.OCSPResponse({
    responseStatus: new asn1js.Enumerated({ value: 0 }),
    responseBytes: new pkijs.ResponseBytes({ responseType: "1.3.6.1.5.5.7.48.1.1", response: new asn1js.OctetString({ valueHex: basic.toSchema().toBER() }) }),
  });
  return new Uint8Array(response.toSchema().toBER());
}

/** A test time-stamping authority: a root and a TSA certificate under it (EKU id-kp-timeStamping only, critical). */
export interface TestTsa {
  rootPem: string;
  cert: x509.X509Certificate;
  key: CryptoKey;
  chain: x509.X509Certificate[];
}

/** With `keyUsageCritical: false` the TSA certificate fails C2PA's certificate profile (key usage must be critical). */
export async function makeTestTsa(name = "Test TSA", options: { keyUsageCritical?: boolean } = {}): Promise<TestTsa> {
  const now = Date.now();
  const root = await makeCa(`${name} Root`, null, new Date(now - 10 * 365 * DAY), new Date(now + 10 * 365 * DAY));
  // Valid from five years back: the tests stamp times in the past.
  const tsa = await issuedBy(root, name, [x509.ExtendedKeyUsage.timeStamping], new Date(now - 5 * 365 * DAY), new Date(now + 5 * 365 * DAY), options.keyUsageCritical ?? true);
  return { rootPem: root.cert.toString("pem"), cert: tsa.cert, key: tsa.key, chain: [root.cert] };
}

/**
 * An RFC 3161 time-stamp response over the request's message imprint, genTime `at` (so a test can
 * stamp a time in the past), signed by the TSA. With `bareToken` the response writes itself as its
 * TimeStampToken alone (a CMS ContentInfo), which is what C2PA 2.x puts in `sigTst2`.
 */
export function timestampProvider(tsa: TestTsa, at: Date, options: { bareToken?: boolean; otherImprint?: boolean; signingKey?: CryptoKey } = {}): TimestampProvider {
  const bareToken = options.bareToken ?? false;
  return {
    async getSignedTimestamp(request) {
      if (options.otherImprint) {
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("some other signature")));
        request.messageImprint.hashedMessage = new asn1js.OctetString({ valueHex: digest });
      }
      const cert = pkijs.Certificate.fromBER(tsa.cert.rawData);
      const tstInfo = new pkijs.TSTInfo({
        version: 1,
        policy: "1.3.6.1.4.1.99999.1",
        messageImprint: request.messageImprint,
        serialNumber: new asn1js.Integer({ value: 7 }),
        genTime: at,
        ...(request.nonce ? { nonce: request.nonce } : {}),
      });
      const signed = new pkijs.SignedData({
        version: 3,
        encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: "1.2.840.113549.1.9.16.1.4", eContent: new asn1js.OctetString({ valueHex: tstInfo.toSchema().toBER() }) }),
        signerInfos: [new pkijs.SignerInfo({ version: 1, sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }) })],
        certificates: [cert, ...tsa.chain.map((c) => pkijs.Certificate.fromBER(c.rawData))],
      });
      await signed.sign(options.signingKey ?? tsa.key, 0, "SHA-256");
      const token = new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signed.toSchema(true) });
      const response = new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }), timeStampToken: token });
      if (bareToken) response.toSchema = () => token.toSchema() as ReturnType<pkijs.TimeStampResp["toSchema"]>;
      return response;
    },
  };
}

export interface SignOptions {
  /** The active manifest's action (default `c2pa.created`). */
  action?: ActionType;
  /** A manifest before the active one, whose `c2pa.created` declares this source type, referenced as an ingredient. */
  ingredientSourceType?: DigitalSourceType;
  ingredientSigner?: TestSigner;
  /** The active action's `softwareAgent`. */
  agent?: string;
  /** Stapled OCSP responses (a `c2pa.certificate-status` assertion in the active manifest). */
  ocsp?: Uint8Array[];
  /** A time-stamp on the active manifest's signature: `sigTst2` (C2PA 2.x, the default) or `sigTst` (v1). */
  timestamp?: { provider: TimestampProvider; version?: "sigTst" | "sigTst2" };
}

/** Embeds a signed C2PA manifest (an action with `sourceType`, plus the data hash) in a JPEG, PNG, WebP or HEIC. */
export async function signAsset(bytes: Uint8Array, signer: TestSigner, sourceType: DigitalSourceType | undefined, options: SignOptions = {}): Promise<Uint8Array> {
  const asset: Asset = WebP.canRead(bytes) ? new WebP(bytes) : BMFF.canRead(bytes) ? new BMFF(bytes) : PNG.canRead(bytes) ? new PNG(bytes) : new JPEG(bytes);
  const store = new ManifestStore();
  const format = asset.mimeType;
  let ingredientLabel: string | undefined;
  if (options.ingredientSourceType) {
    const ingredientSigner = options.ingredientSigner ?? signer;
    const parent = store.createManifest({ assetFormat: format, instanceID: `xmp:iid:${crypto.randomUUID()}`, defaultHashAlgorithm: "SHA-256", signer: ingredientSigner.signer });
    const created = new ActionAssertion();
    created.actions = [{ action: ActionType.C2paCreated, digitalSourceType: options.ingredientSourceType }];
    parent.addAssertion(created);
    ingredientLabel = parent.label;
  }
  const manifest = store.createManifest({ assetFormat: format, instanceID: `xmp:iid:${crypto.randomUUID()}`, defaultHashAlgorithm: "SHA-256", signer: signer.signer });
  const actions = new ActionAssertion();
  actions.actions = [{ action: options.action ?? ActionType.C2paCreated, ...(sourceType ? { digitalSourceType: sourceType } : {}), ...(options.agent ? { softwareAgent: { name: options.agent } } : {}) }];
  manifest.addAssertion(actions);
  if (ingredientLabel) {
    const ingredient = IngredientAssertion.create("generated.jpg", format, `xmp:iid:${crypto.randomUUID()}`);
    ingredient.relationship = RelationshipType.ParentOf;
    ingredient.c2pa_manifest = { uri: `self#jumbf=/c2pa/${ingredientLabel}`, hash: new Uint8Array(32), algorithm: "SHA-256" };
    manifest.addAssertion(ingredient);
  }
  if (options.ocsp) manifest.addAssertion(new CertificateStatusAssertion(options.ocsp));
  const dataHash = DataHashAssertion.create("SHA-256");
  manifest.addAssertion(dataHash);
  await asset.ensureManifestSpace(store.measureSize());
  await dataHash.updateWithAsset(asset);
  if (options.timestamp?.version === "sigTst") {
    // c2pa-ts's Manifest.sign always asks for a v2 time-stamp; a v1 one is the claim's countersignature.
    const data = manifest.signature!.signatureData;
    const sign = data.sign.bind(data);
    data.sign = (s, payload, provider) => sign(s, payload, provider, TimestampVersion.V1);
  }
  for (const m of store.manifests) {
    if (m === manifest) await m.sign(signer.signer, options.timestamp?.provider);
    else await m.sign((options.ingredientSigner ?? signer).signer);
  }
  await asset.writeManifestJUMBF(store.getBytes());
  return asset.getDataRange();
}

/** Embeds a signed C2PA manifest (a `c2pa.created` action with `sourceType`, plus the data hash). */
export async function signJpeg(jpegBytes: Uint8Array, signer: TestSigner, sourceType: DigitalSourceType): Promise<Uint8Array> {
  return signAsset(jpegBytes, signer, sourceType);
}

export { ActionType, DigitalSourceType };
