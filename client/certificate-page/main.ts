/*
 * The certificate page (GET /v1/certificates/{token} with Accept: text/html). The Worker puts the
 * certificate in the page (#certificate-data); this bundle verifies its signature against the
 * issuer's published keys with WebCrypto (jose, the same code as the verification-certificate
 * command), shows what it says only once that holds, and checks photos the reader drops or chooses
 * against the certified SHA-256 digests, in this browser: no photo is sent anywhere.
 */
import { CertificateError, fetchKeySet, issuerOfJwksUrl, requesterOf, verifyCertificate, type CertificatePayload } from "../../clients/typescript/src/certificate";
import { h } from "../capture-page/dom";
import "./styles.css";
import { checkPhoto, type PhotoCheck } from "./photos";

interface CertificateData {
  certificate: string;
  jwks_url: string;
  kid: string;
  sequence: number;
  issued_at: string;
}

const VERDICT: Record<string, string> = { verified: "Verified", suspicious: "Suspicious", failed: "Failed" };
const REASON: Record<string, string> = {
  screen_detected: "a photo of a screen",
  ai_generated: "likely AI-generated",
  context_mismatch: "does not match the stated context",
  reverse_search_match: "found elsewhere",
  depth_anomaly: "flat where a scene has depth",
  not_assessed: "a required check could not run",
};
const SIGNAL: Record<string, string> = {
  screen_detection: "Photo of a screen",
  ai_detection: "AI-generated image",
  reverse_search: "Seen before (reverse search)",
  depth: "Flat where a scene has depth",
  context_match: "Matches the stated context",
};
const SIGNAL_STATUS: Record<string, string> = { assessed: "checked", not_assessed: "not checked: it could not run", not_applicable: "does not apply: no photo came through the capture link" };
const METHOD: Record<string, string> = {
  pixels: "from the image's pixels",
  provenance: "from the file's provenance data",
  depth_map: "from the depth map uploaded with the photo (the client's, not tied to a camera)",
  capture_burst: "from the frames around the shutter that the service received and measured",
  capture_burst_flat_scene: "from the frames around the shutter that the service received and measured: a flat scene",
  capture_burst_no_parallax: "from the frames around the shutter that the service received and measured: too little motion to judge depth",
  perceptual_hash: "compared with earlier photos",
};
const DECISION: Record<string, string> = { approved: "Approved", rejected: "Rejected", needs_more: "More evidence asked for" };
const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
const when = (iso: string): string => `${dateTime.format(new Date(iso))} UTC`;

const app = document.getElementById("app")!;
const data = JSON.parse(document.getElementById("certificate-data")!.textContent ?? "null") as CertificateData;

void start();

async function start(): Promise<void> {
  const status = h("p", { class: "signature pending", role: "status" }, "Checking the signature against the issuer's published keys…");
  app.replaceChildren(h("header", { class: "masthead" }, h("p", { class: "eyebrow" }, "Verification certificate"), h("h1", null, "Checking this certificate…")), status);
  try {
    const jwks = await fetchKeySet(data.jwks_url);
    const { payload, kid } = await verifyCertificate(data.certificate, { jwks, issuer: issuerOfJwksUrl(data.jwks_url) });
    render(payload, kid);
  } catch (err) {
    const message = err instanceof CertificateError ? err.message : "The certificate could not be checked.";
    app.replaceChildren(
      h("header", { class: "masthead" }, h("p", { class: "eyebrow" }, "Verification certificate"), h("h1", null, "This certificate is not valid")),
      h("p", { class: "signature invalid", role: "alert" }, `${message} Do not rely on what it says.`),
    );
  }
}

function render(payload: CertificatePayload, kid: string): void {
  const v = payload.verification;
  const requester = requesterOf(payload);
  const label = VERDICT[v.verdict.label] ?? v.verdict.label;
  const results = h("ul", { class: "photo-results", "aria-live": "polite", "aria-label": "Checked photos" });
  const rows = new Map<string, HTMLTableCellElement>();
  const input = h("input", { type: "file", id: "photos", multiple: true, accept: "image/*,.heic,.heif", class: "visually-hidden" });
  const drop = h(
    "div",
    { class: "dropzone", id: "dropzone" },
    h("p", { class: "drop-title" }, "Drop the photos you were sent here"),
    h("p", { class: "hint" }, "Each one is hashed in this browser and compared with the certificate. Nothing is uploaded. A copy with Content Credentials (the photo with the issuer's C2PA manifest) matches too."),
    input,
    h("label", { for: "photos", class: "button" }, "Choose photos…"),
  );
  const check = async (files: FileList | File[]): Promise<void> => {
    for (const file of Array.from(files)) {
      const outcome = await checkPhoto(file, payload);
      results.prepend(photoLine(outcome));
      if (outcome.outcome === "match" || outcome.outcome === "match_with_credentials") rows.get(outcome.capture.id)!.replaceChildren(h("span", { class: "badge good" }, `Matches ${outcome.file}`));
    }
  };
  input.addEventListener("change", () => {
    if (input.files) void check(input.files).then(() => (input.value = ""));
  });
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    if (event.dataTransfer?.files.length) void check(event.dataTransfer.files);
  });
  // A file dropped beside the zone must not navigate away from the certificate.
  window.addEventListener("dragover", (event) => event.preventDefault());
  window.addEventListener("drop", (event) => event.preventDefault());

  const captureRows = v.captures.map((c, i) => {
    const state = h("td", { "data-label": "Checked" }, h("span", { class: "muted" }, "Not checked yet"));
    rows.set(c.id, state);
    return h(
      "tr",
      null,
      h("th", { scope: "row", "data-label": "Photo" }, `${i + 1}. `, h("span", { class: "mono" }, c.step_key)),
      h("td", { "data-label": "Kind" }, c.kind === "live" ? "Submitted through the capture link" : "Uploaded file"),
      h("td", { "data-label": "Received" }, when(c.received_at)),
      h("td", { "data-label": "SHA-256" }, h("code", { class: "digest", title: c.sha256 }, c.sha256)),
      state,
    );
  });

  app.replaceChildren(
    h(
      "header",
      { class: "masthead" },
      h("p", { class: "eyebrow" }, "Verification certificate"),
      // The name is isolated (<bdi>): a bidi control in a declared name must not reorder the words the issuer adds around it.
      requester.kind === "verified_domain"
        ? h("h1", null, `${label}: verification for `, h("bdi", null, requester.name))
        : h("h1", null, `${label}: verification requested by “`, h("bdi", null, requester.name), "”, as declared by the tenant"),
      h("p", { class: "signature valid", role: "status" }, h("strong", null, "Signature valid. "), `Issued by ${payload.iss} and signed with one of its published keys (${shortKid(kid)}).`),
    ),
    h(
      "section",
      { "aria-labelledby": "facts-title", class: "card" },
      h("h2", { id: "facts-title" }, "What the service saw and decided"),
      h(
        "dl",
        { class: "facts" },
        fact("Requested by", requestedBy(payload)),
        fact("Verdict", `${label}${v.verdict.reason_code ? ` (${REASON[v.verdict.reason_code] ?? v.verdict.reason_code})` : ""}${v.verdict.assessment === "complete" ? "" : `; assessment ${v.verdict.assessment}`}`),
        "signals" in v.verdict ? fact("Checks", signalList(v.verdict.signals)) : null,
        v.review ? fact("Operator review", `${DECISION[v.review.decision] ?? v.review.decision}, ${when(v.review.reviewed_at)}`) : null,
        fact("Requested", when(v.created_at)),
        fact("Completed", when(v.completed_at)),
        v.finalized_at ? fact("Finalized by an operator", when(v.finalized_at)) : null,
        v.redacted_at ? fact("Evidence erased", `${when(v.redacted_at)}: the photos are deleted, their digests below remain`) : null,
        fact("Verification", h("span", { class: "mono" }, v.id)),
        v.record_seal ? fact("Record seal", h("code", { class: "digest" }, v.record_seal.hash)) : null,
        fact("Certificate", `No. ${payload.sequence}, issued ${when(new Date(payload.iat * 1000).toISOString())}`),
      ),
    ),
    h(
      "section",
      { "aria-labelledby": "photos-title", class: "card" },
      h("h2", { id: "photos-title" }, `Photos (${v.captures.length})`),
      h(
        "table",
        { class: "captures responsive" },
        h("caption", { class: "visually-hidden" }, "The certified photos"),
        h("thead", null, h("tr", null, ...["Photo", "Kind", "Received", "SHA-256", "Checked"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", null, ...captureRows),
      ),
      drop,
      results,
    ),
    h(
      "section",
      { "aria-labelledby": "meaning-title", class: "card" },
      h("h2", { id: "meaning-title" }, "What this proves, and what it does not"),
      h(
        "p",
        null,
        `${payload.iss} states, under its signature, that it received these photos (a photo whose SHA-256 matches is byte for byte the one it received) and reached this verdict. ` +
          "It does not prove that what a photo shows is true, and a photo that was re-saved, resized or edited no longer matches.",
      ),
      h(
        "p",
        { class: "hint" },
        "This page is served by the issuer. To check the certificate without relying on it, save ",
        h("a", { href: URL.createObjectURL(new Blob([JSON.stringify(data)], { type: "application/json" })), download: "certificate.json" }, "the certificate"),
        " and ",
        h("a", { href: data.jwks_url, download: "keys.json" }, "the issuer's keys"),
        ", then run ",
        h("code", null, `npx verification-certificate verify certificate.json photo.jpg --jwks keys.json --issuer ${payload.iss}`),
        " (from the service's repository) or any JWS library.",
      ),
    ),
  );
}

/**
 * Who asked, as far as the issuer vouches for it: a domain the tenant proved by DNS, else the name it
 * typed for itself, said to be only that (anyone can call themselves anything).
 */
function requestedBy(payload: CertificatePayload): Node {
  const requester = requesterOf(payload);
  const tenant = payload.verification.tenant;
  const id = "id" in tenant ? h("span", { class: "muted" }, ` (account ${tenant.id})`) : null;
  if (requester.kind === "verified_domain") {
    return h("span", null, h("strong", null, h("bdi", null, requester.name)), ", a domain the requester proved it controls (DNS record checked by the issuer)", id);
  }
  return h("span", null, h("strong", null, "“", h("bdi", null, requester.name), "”"), ", as declared by the tenant: the issuer has not verified who they are", id);
}

function signalList(signals: Record<string, { status: string; method?: string }>): Node {
  return h(
    "ul",
    { class: "signals" },
    ...Object.entries(signals).map(([key, { status, method }]) =>
      h("li", null, `${SIGNAL[key] ?? key}: ${SIGNAL_STATUS[status] ?? status}${method ? `, ${method.split(", ").map(methodWords).join(" and ")}` : ""}`),
    ),
  );
}

function methodWords(method: string): string {
  return method
    .split("+")
    .map((part) => METHOD[part] ?? (part.startsWith("provider:") ? `by the provider ${part.slice("provider:".length)}` : part))
    .join(" and ");
}

function fact(term: string, value: string | Node): DocumentFragment {
  const fragment = document.createDocumentFragment();
  fragment.append(h("dt", null, term), h("dd", null, value));
  return fragment;
}

function photoLine(check: PhotoCheck): HTMLLIElement {
  switch (check.outcome) {
    case "match":
      return h("li", { class: "good" }, h("strong", null, `${check.file}: matches. `), `It is photo ${check.capture.step_key} (${check.capture.id}), byte for byte.`);
    case "match_with_credentials":
      return h(
        "li",
        { class: "good" },
        h("strong", null, `${check.file}: matches, with Content Credentials. `),
        `It is photo ${check.capture.step_key} (${check.capture.id}) byte for byte, plus a C2PA manifest (a copy downloaded with Content Credentials): check the manifest with a C2PA validator.`,
      );
    case "not_in_certificate":
      return h("li", { class: "bad" }, h("strong", null, `${check.file}: not in this certificate. `), "Its SHA-256 is none of the certified photos' (another photo, or a re-saved or edited copy).");
    case "too_large":
      return h("li", { class: "bad" }, h("strong", null, `${check.file}: not checked. `), "It is larger than any photo the service accepts.");
  }
}

function shortKid(kid: string): string {
  return kid.length > 12 ? `${kid.slice(0, 8)}…` : kid;
}
