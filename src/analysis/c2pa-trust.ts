import * as pkijs from "pkijs";
import { toHex } from "../lib/crypto";
import { C2PA_TRUST_LIST, C2PA_TSA_TRUST_LIST } from "./c2pa-trust-list";

/**
 * Which C2PA signers a deployment trusts (docs/signals.md, "Provenance"): the official C2PA Trust
 * List (src/analysis/c2pa-trust-list.ts) unless replaced, plus anchors of its own (PEM), plus pinned
 * SHA-256 fingerprints (a signer or an issuing CA in the manifest's chain).
 */
export interface C2paTrust {
  /** Use the shipped C2PA Trust List and TSA Trust List as anchors. */
  officialList: boolean;
  /** Extra anchors, PEM (any number of CERTIFICATE blocks). */
  anchorsPem: string;
  /** Pinned certificates, SHA-256 hex of their DER. */
  fingerprints: readonly string[];
}

export const DEFAULT_TRUST: C2paTrust = { officialList: true, anchorsPem: "", fingerprints: [] };

/** The chain's verdict, its time, and the revocation evidence, in words the evidence can carry. */
export interface TrustResult {
  trusted: boolean;
  /** `anchored: CN=root`, `untrusted: <why>`, `revoked: <when>`. */
  detail: string;
  revocation: "good" | "revoked" | "unknown" | "none";
  revocation_detail: string;
  /** What time the chain was checked at: the trusted timestamp, else the validation time. */
  checked_at: string;
  time_source: "timestamp" | "now";
}

interface Anchors {
  signers: pkijs.Certificate[];
  tsa: pkijs.Certificate[];
}

const anchorCache = new Map<string, Anchors>();

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function parseDer(der: Uint8Array): pkijs.Certificate {
  return pkijs.Certificate.fromBER(der);
}

/** PEM blocks → certificates; a block that does not parse is skipped (the config check names it). */
export function pemCertificates(pem: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)) {
    if (out.length >= 1000) break;
    try {
      out.push(fromBase64(m[1]!.replace(/\s+/g, "")));
    } catch {
      // Not base64: no certificate.
    }
  }
  return out;
}

/** Parsed once per isolate and configuration (52 official certificates take about 5 ms to parse). */
function anchorsFor(trust: C2paTrust): Anchors {
  const key = `${trust.officialList ? 1 : 0}\n${trust.anchorsPem}`;
  let anchors = anchorCache.get(key);
  if (!anchors) {
    const own: pkijs.Certificate[] = [];
    for (const der of pemCertificates(trust.anchorsPem)) {
      try {
        own.push(parseDer(der));
      } catch {
        // Not a certificate: it anchors nothing.
      }
    }
    anchors = {
      signers: [...(trust.officialList ? C2PA_TRUST_LIST.map((c) => parseDer(fromBase64(c.der))) : []), ...own],
      tsa: [...(trust.officialList ? C2PA_TSA_TRUST_LIST.map((c) => parseDer(fromBase64(c.der))) : []), ...own],
    };
    if (anchorCache.size > 8) anchorCache.clear();
    anchorCache.set(key, anchors);
  }
  return anchors;
}

function subjectOf(cert: pkijs.Certificate): string {
  const cn = cert.subject.typesAndValues.find((t) => t.type === "2.5.4.3");
  return cn ? `CN=${String(cn.value.valueBlock.value)}` : "unnamed certificate";
}

const ID_KP_OCSP_SIGNING = "1.3.6.1.5.5.7.3.9";
const ID_KP_TIME_STAMPING = "1.3.6.1.5.5.7.3.8";

function ekuIncludes(cert: pkijs.Certificate, purpose: string): boolean {
  const eku = cert.extensions?.find((e) => e.extnID === "2.5.29.37")?.parsedValue as pkijs.ExtKeyUsage | undefined;
  return eku?.keyPurposes.includes(purpose) ?? false;
}

function sameCertificate(a: pkijs.Certificate, b: pkijs.Certificate): boolean {
  const x = new Uint8Array(a.tbsView);
  const y = new Uint8Array(b.tbsView);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

async function fingerprint(der: ArrayBuffer | Uint8Array): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", der as BufferSource));
}

/**
 * Validates `chain` (the COSE x5chain: signer first, then the intermediates it carries) to an
 * anchor at `at`: signatures, validity periods, CA basic constraints and key usage (pkijs, RFC 5280
 * path validation). A pinned fingerprint anchors the certificate it names.
 */
export async function validateChain(chainDer: readonly Uint8Array[], at: Date, trust: C2paTrust, kind: "signer" | "tsa" = "signer"): Promise<{ ok: boolean; detail: string }> {
  if (chainDer.length === 0) return { ok: false, detail: "no certificate" };
  const certs = chainDer.slice(0, 10).map(parseDer);
  const anchors = anchorsFor(trust);
  const trusted = [...(kind === "signer" ? anchors.signers : anchors.tsa)];
  const pins = new Set(trust.fingerprints.map((f) => f.toLowerCase().replace(/[^0-9a-f]/g, "")));
  if (pins.size > 0) {
    for (let i = 0; i < certs.length; i++) if (pins.has(await fingerprint(chainDer[i]!))) trusted.push(certs[i]!);
  }
  if (trusted.length === 0) return { ok: false, detail: "no trust anchors configured" };
  // A pinned signer certificate is its own anchor: nothing to build.
  if (trusted.includes(certs[0]!)) {
    const leaf = certs[0]!;
    if (leaf.notBefore.value > at || leaf.notAfter.value < at) return { ok: false, detail: `pinned ${subjectOf(leaf)} outside its validity at ${at.toISOString()}` };
    return { ok: true, detail: `pinned ${subjectOf(leaf)}` };
  }
  if (kind === "tsa" && !ekuIncludes(certs[0]!, ID_KP_TIME_STAMPING)) return { ok: false, detail: `${subjectOf(certs[0]!)} is no time-stamping authority (no id-kp-timeStamping)` };
  // pkijs builds the path from the last certificate it is given: the signer goes last.
  const engine = new pkijs.CertificateChainValidationEngine({ trustedCerts: trusted, certs: [...certs.slice(1), certs[0]!], checkDate: at });
  try {
    const result = await engine.verify({ passedWhenNotRevValues: true });
    if (!result.result) return { ok: false, detail: result.resultMessage || "chain does not reach an anchor" };
    const path = (result as { certificatePath?: pkijs.Certificate[] }).certificatePath ?? [];
    if (!path[0] || !sameCertificate(path[0], certs[0]!)) return { ok: false, detail: `the validated path does not start at ${subjectOf(certs[0]!)}` };
    const root = path[path.length - 1];
    return { ok: true, detail: `anchored at ${root ? subjectOf(root) : "a trust anchor"}` };
  } catch (err) {
    return { ok: false, detail: `chain validation failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * Stapled OCSP responses (COSE unprotected header `rVals.ocspVals`, or a `c2pa.certificate-status`
 * assertion) about the signer. A response counts, good or revoked, only when signed by the signer's
 * issuer or a responder it delegated to (RFC 6960 3.2, 4.2.2.2): `rVals` is outside the claim
 * signature, so anyone can staple there, and "revoked" is a claim about the signer the evidence repeats.
 */
export async function stapledRevocation(ocspDer: readonly Uint8Array[], chainDer: readonly Uint8Array[]): Promise<{ status: TrustResult["revocation"]; detail: string }> {
  if (ocspDer.length === 0) return { status: "none", detail: "no stapled OCSP response: revocation not checked" };
  if (chainDer.length < 2) return { status: "unknown", detail: "stapled OCSP response, but no issuer certificate in the chain to match it" };
  const leaf = parseDer(chainDer[0]!);
  const issuer = parseDer(chainDer[1]!);
  let sawGood = false;
  let unsignedRevoked = false;
  for (const der of ocspDer.slice(0, 8)) {
    let basic: pkijs.BasicOCSPResponse;
    try {
      const response = pkijs.OCSPResponse.fromBER(der);
      if (!response.responseBytes) continue;
      basic = pkijs.BasicOCSPResponse.fromBER(response.responseBytes.response.valueBlock.valueHexView);
    } catch {
      continue;
    }
    let status: pkijs.CertificateStatus;
    try {
      status = await basic.getCertificateStatus(leaf, issuer);
    } catch {
      continue;
    }
    if (!status.isForCertificate || (status.status !== 0 && status.status !== 1)) continue;
    if (!(await signedByIssuer(basic, issuer))) {
      if (status.status === 1) unsignedRevoked = true;
      continue;
    }
    if (status.status === 1) {
      const single = basic.tbsResponseData.responses.find((r) => r.certID.serialNumber.isEqual(leaf.serialNumber));
      const when = (single?.certStatus as { valueBlock?: { value?: Array<{ toDate?: () => Date }> } } | undefined)?.valueBlock?.value?.[0]?.toDate?.();
      return { status: "revoked", detail: `signer revoked${when ? ` at ${when.toISOString()}` : ""} (stapled OCSP)` };
    }
    sawGood = true;
  }
  if (sawGood) return { status: "good", detail: "stapled OCSP: not revoked" };
  if (unsignedRevoked) return { status: "unknown", detail: "stapled OCSP response says revoked but is signed neither by the issuer nor by a responder it delegated to: ignored" };
  return { status: "unknown", detail: "stapled OCSP response neither verifiable as good nor revoking the signer" };
}

/**
 * The response is signed by the signer's issuer, or by a responder certificate (carried in the
 * response, EKU OCSPSigning per RFC 6960 4.2.2.2) the issuer signed. pkijs's own `verify` wants a
 * chain to a self-signed root, which a manifest's x5chain does not carry.
 */
async function signedByIssuer(basic: pkijs.BasicOCSPResponse, issuer: pkijs.Certificate): Promise<boolean> {
  const engine = pkijs.getCrypto(true);
  const responders = [issuer];
  for (const cert of (basic.certs ?? []).slice(0, 4)) {
    try {
      if (ekuIncludes(cert, ID_KP_OCSP_SIGNING) && (await cert.verify(issuer))) responders.push(cert);
    } catch {
      // Not a responder this issuer delegated to.
    }
  }
  for (const responder of responders) {
    try {
      if (await engine.verifyWithPublicKey(basic.tbsResponseData.tbsView as BufferSource, basic.signature, responder.subjectPublicKeyInfo, basic.signatureAlgorithm)) return true;
    } catch {
      // An unverifiable "good" is no evidence.
    }
  }
  return false;
}
