import fontkit from "@pdf-lib/fontkit";
import { PDFDocument, type PDFImage } from "pdf-lib";
import { SIGNAL_KEYS } from "../../analysis/verdict";
import { printedId, type ReportCapture, type ReportContent } from "./content";
import { takesCaptures } from "../../model/verification/capture-credential";
import { DEJAVU_SANS, DEJAVU_SANS_BOLD } from "./fonts/dejavu-sans";
import { drawLocationMap, MAP_LEGEND } from "./location-map";
import { CONTENT_WIDTH, MUTED, PageFlow, type Placed } from "./page-flow";
import { drawQrCode } from "./qr";
import { assessmentWords, locationWords, methodWords, outcomeWords, reasonWords, signalName, statusWords } from "./words";

/*
 * The evidence report as a PDF (pdf-lib, fonts embedded and subset to the glyphs used): laid out
 * for a reader who prints it and files it with the claim. It draws only what `ReportContent`
 * carries; what a redacted verification may not show never reaches it.
 */

let fontBytes: { regular: Uint8Array; bold: Uint8Array } | undefined;
function fonts(): { regular: Uint8Array; bold: Uint8Array } {
  fontBytes ??= { regular: fromBase64(DEJAVU_SANS), bold: fromBase64(DEJAVU_SANS_BOLD) };
  return fontBytes;
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const when = (value: string | undefined | null) => (value ? value.replace("T", " ").replace(/\.\d+Z$/, " UTC").replace(/Z$/, " UTC") : "-");
const LABELS: Readonly<Record<string, string>> = { verified: "VERIFIED", suspicious: "SUSPICIOUS", failed: "FAILED" };

export async function renderReport(content: ReportContent): Promise<Uint8Array> {
  const { doc } = await layoutReport(content);
  return doc.save({ useObjectStreams: true });
}

/** Every line of text the report prints, in order (its pages as a reader sees them). */
export async function reportText(content: ReportContent): Promise<string[]> {
  return (await layoutReport(content)).flow.printed;
}

/** Every line and block the report draws, in order, with the page it lands on. */
export async function reportLayout(content: ReportContent): Promise<Placed[]> {
  return (await layoutReport(content)).flow.placed;
}

async function layoutReport(content: ReportContent): Promise<{ doc: PDFDocument; flow: PageFlow }> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const bytes = fonts();
  const flow = new PageFlow(doc, {
    regular: await doc.embedFont(bytes.regular, { subset: true }),
    bold: await doc.embedFont(bytes.bold, { subset: true }),
  });
  const shown = printedId(content.verification, content.generatedAt).id;
  doc.setTitle(`Evidence report ${shown}`);
  doc.setSubject(`Verification ${shown} of ${content.tenant.displayName}`);
  doc.setProducer(content.issuer);
  doc.setCreator("verification service evidence report");
  doc.setCreationDate(new Date(content.generatedAt));

  header(flow, content);
  verdict(flow, content);
  await captures(flow, content);
  answers(flow, content);
  checks(flow, content);
  review(flow, content);
  caseAnalysis(flow, content);
  certificate(flow, content);
  seal(flow, content);
  timeline(flow, content);
  const unprintable = flow.unprintable;
  if (unprintable > 0) unprintableNote(flow, unprintable, content.redacted);

  const marks = unprintable > 0 ? `“?” marks ${unprintable} character${unprintable === 1 ? "" : "s"} this report's font cannot print (see “Text this report could not print”)` : undefined;
  flow.footers(`Evidence report ${shown} · generated ${when(content.generatedAt)}`, marks);
  return { doc, flow };
}

/**
 * Text in a script the embedded fonts lack printed as "?": the report says so on every page and here,
 * so that nobody files it as what was written. The service holds the text as written.
 */
function unprintableNote(flow: PageFlow, count: number, redacted: boolean): void {
  flow.heading("Text this report could not print");
  flow.paragraph(
    `${count} character${count === 1 ? " was" : "s were"} printed as “?”: this report's font covers Latin, Greek and Cyrillic only. ` +
      // A redacted verification's answers, notes and metadata are gone: only names are left to print.
      (redacted
        ? "The names as written are in the console (the organisation's in Settings, step keys on the verification's page)."
        : "The text as written (answers, notes, narrative, metadata) is in the console and in GET /v1/verifications/{id}."),
  );
}

function header(flow: PageFlow, content: ReportContent): void {
  const v = content.verification;
  flow.paragraph("Evidence report", { size: 20, bold: true });
  flow.paragraph(`Issued by ${content.issuer} on ${when(content.generatedAt)}`, { size: 9, color: MUTED });
  flow.gap(8);
  if (content.redacted) {
    flow.paragraph(
      `This verification was redacted on ${when(v.redacted_at)}: its images, answers, locations, notes and every other personal field were erased, and this report shows none of them.`,
      { size: 10, bold: true },
    );
    flow.gap(6);
  }
  const id = printedId(v, content.generatedAt);
  flow.field("Verification", id.id);
  if (id.withheld) {
    flow.field("", "The rest of this id is withheld: while captures can still be taken, the full id is the capture link's credential (anyone holding it may add captures).");
  }
  // A proved domain on a line of its own, never inside the name the tenant typed (which could imitate it).
  if (content.tenant.verifiedDomain) {
    flow.field("Proved domain", content.tenant.verifiedDomain);
    flow.field("Declared name", `${content.tenant.displayName} (as the tenant typed it; not checked)`);
  } else {
    flow.field("Requested by", `${content.tenant.displayName} (name as the tenant declared it)`);
  }
  flow.field("Tenant id", content.tenant.id);
  flow.field("Status", v.status);
  flow.field("Created", when(v.created_at));
  if (v.submitted_at) flow.field("Submitted", when(v.submitted_at));
  if (v.completed_at) flow.field("Completed", when(v.completed_at));
  // The capture link's end: while it takes captures, when; after, that it is closed (a "Link expires"
  // date on a closed case read as if the certificate link expired, or the capture link were open).
  if (takesCaptures({ status: v.status, expiresAt: Date.parse(v.expires_at), redacted: Boolean(v.redacted_at) }, Date.parse(content.generatedAt))) {
    flow.field("Capture link", `open until ${when(v.expires_at)}`);
  } else {
    flow.field("Capture link", v.status === "expired" || Date.parse(v.expires_at) <= Date.parse(content.generatedAt) ? `closed (expired ${when(v.expires_at)})` : "closed (it takes no more captures)");
  }
  if (v.template) flow.field("Template", `${v.template.id} (version ${v.template.version})`);
  if (v.failure_reason) flow.field("Failure", v.failure_reason);
  const metadata = v.config.metadata;
  if (metadata && Object.keys(metadata).length > 0) flow.field("Metadata", Object.entries(metadata).map(([k, x]) => `${k}: ${x}`).join("; "));
}

/** Why a verification has no verdict: one will come (the evidence or its analysis is not done), or none will. */
function noVerdict(v: ReportContent["verification"]): string {
  if (v.status === "expired") return "No verdict: the capture link expired before the evidence was complete.";
  if (v.status === "failed") return `No verdict: the verification failed${v.failure_reason ? ` (${v.failure_reason})` : ""}.`;
  return "No verdict yet: the evidence is not complete, or its analysis is still running.";
}

function verdict(flow: PageFlow, content: ReportContent): void {
  const verdict = content.verification.verdict;
  flow.heading("Verdict");
  if (!verdict) {
    flow.paragraph(noVerdict(content.verification));
    return;
  }
  if (verdict.assessment === "none") {
    // Nothing evaluated is never a verdict: no headline may read as a check (the certificate is refused too).
    flow.paragraph("NOT ASSESSED", { size: 16, bold: true });
    flow.field("Label", `${verdict.label}, as stored; it claims nothing about the evidence, since no check was made`);
  } else {
    flow.paragraph(LABELS[verdict.label] ?? verdict.label.toUpperCase(), { size: 16, bold: true });
  }
  const reason = reasonWords(verdict.reason_code);
  if (reason) flow.field("Reason", `${reason} (${verdict.reason_code})`);
  flow.field("Assessment", `${verdict.assessment}: ${assessmentWords(verdict.assessment)}`);
  flow.field("Verdict confidence", verdict.score.toFixed(2));
  flow.gap(4);
  flow.paragraph("Each required check, what it concluded and what decided it:", { size: 9, color: MUTED });
  const signals = verdict.signals as Record<string, unknown>;
  for (const name of content.verification.config.signals_required) {
    const key = SIGNAL_KEYS[name];
    const certified = content.signals[key];
    const method = certified?.status === "assessed" ? `; decided by ${methodWords(certified.method)}` : "";
    flow.field(signalName(key), `${statusWords(certified)}: ${outcomeWords(key, signals[key])}${method}`);
  }
}

async function captures(flow: PageFlow, content: ReportContent): Promise<void> {
  const steps = new Map(content.verification.config.steps.map((s) => [s.key, s.description]));
  flow.heading(`Captures (${content.captures.length})`);
  if (content.captures.length === 0) flow.paragraph("No capture was received.");
  for (const [i, capture] of content.captures.entries()) {
    const description = steps.get(capture.view.step_key);
    const title = `${i + 1}. Step "${capture.view.step_key}"${description ? `: ${description}` : ""}`;
    const image = await captureImage(flow, capture);
    // The title with its photo on one page (probe of 2026-12-07: a title checked for 120 pt ended a page, its photo up to 206 pt tall began the next).
    const below = typeof image === "object" ? flow.blockHeight(flow.imageSize(image, ...PHOTO_BOX).height) : 0;
    flow.ensure(Math.max(120, 4 + flow.paragraphHeight(title, TITLE) + below));
    flow.gap(4);
    flow.paragraph(title, TITLE);
    if (typeof image === "object") flow.image(image, ...PHOTO_BOX);
    else if (image === "unreadable") flow.paragraph("(The stored thumbnail could not be read.)", { size: 9, color: MUTED });
    captureFields(flow, capture, content.issuer);
  }
}

const TITLE = { size: 10.5, bold: true };
/** A capture's photo is drawn within this box (width, height in points). */
const PHOTO_BOX: [number, number] = [260, 200];

/** The capture's stored thumbnail, embedded; "unreadable" when it does not decode, undefined when there is none. */
async function captureImage(flow: PageFlow, capture: ReportCapture): Promise<PDFImage | "unreadable" | undefined> {
  if (!capture.image) return undefined;
  try {
    return await flow.doc.embedJpg(capture.image.jpeg);
  } catch {
    return "unreadable";
  }
}

function captureFields(flow: PageFlow, capture: ReportCapture, issuer: string): void {
  const c = capture.view;
  flow.field("Capture", c.id);
  flow.field("How", c.source === "live" ? "submitted through the capture link" : "uploaded as an existing image");
  flow.field("Received", when(c.created_at));
  if (c.client_captured_at) flow.field("Device clock at capture", when(c.client_captured_at));
  flow.field("File", `${c.media_type}, ${c.size_bytes.toLocaleString("en-US")} bytes${c.width && c.height ? `, ${c.width} × ${c.height} px` : ""}`);
  flow.field("SHA-256", c.sha256, { size: 8.5 });
  if (capture.credentials) {
    flow.field(
      "Content Credentials",
      `A copy of this file with a C2PA manifest signed by ${issuer} (what it received and when, and each check) exists: the tenant downloads it from the console or through the captures API (credentials_url). Its image data is this file, byte for byte.`,
    );
  }
  if (c.location) {
    const accuracy = c.location.accuracy_m !== undefined ? ` ± ${Math.round(c.location.accuracy_m)} m` : "";
    flow.field("Location", `${c.location.lat.toFixed(6)}, ${c.location.lng.toFixed(6)}${accuracy} (${c.location.source === "device" ? "reported by the device" : "the photo's EXIF GPS"}${c.location.is_mock ? ", reported as a mock location" : ""})`);
  }
  if (c.analysis.status !== "completed") flow.field("Analysis", c.analysis.status);
  for (const [key, signal] of Object.entries(c.analysis.signals)) {
    const value = signal.status === "assessed" ? { ...signal.value, ...(signal.confidence !== undefined ? { confidence: signal.confidence } : {}) } : signal;
    flow.field(signalName(key), outcomeWords(key, value));
  }
}

function answers(flow: PageFlow, content: ReportContent): void {
  const answered = content.verification.answers;
  if (!answered || Object.keys(answered).length === 0) return;
  const steps = new Map(content.verification.config.steps.map((s) => [s.key, s.description]));
  flow.heading("Answers");
  for (const [key, answer] of Object.entries(answered)) {
    flow.field(steps.get(key) ?? key, `${answer.value}  (answered ${when(answer.answered_at)})`);
  }
}

function checks(flow: PageFlow, content: ReportContent): void {
  const { location_match: location, object_match: object, condition } = content.verification;
  if (!location && !object && !condition) return;
  flow.heading("Independent checks");
  if (location) {
    // The check's rows and its map on one page.
    flow.ensure(location.expected_point || location.observed_point ? 280 : 90);
    flow.paragraph("Location", { bold: true });
    flow.field("Result", `${location.status}: ${locationWords(location)}`);
    flow.field("Expected", location.expected_location);
    flow.field("Observed", location.observed_location ?? "no fix");
    if (location.distance_m !== null) flow.field("Distance", `${location.distance_m} m (tolerance ${location.tolerance_m ?? "-"} m)`);
    if (location.source) flow.field("Fix from", location.source === "device" ? "the device" : "the photo's EXIF GPS");
    if (location.expected_point || location.observed_point) {
      flow.block(170, (x, bottom) => {
        drawLocationMap(flow.page, flow.fonts, { x, y: bottom, width: 240, height: 170 }, {
          expected: location.expected_point,
          observed: location.observed_point,
          toleranceM: location.tolerance_m,
          distanceM: location.distance_m,
        });
        const legend = [MAP_LEGEND.expected, MAP_LEGEND.observed, "Drawn from the coordinates alone: no map data."];
        legend.forEach((line, i) => {
          for (const [j, part] of flow.wrap(line, CONTENT_WIDTH - 260, flow.fonts.regular, 8).entries()) {
            flow.page.drawText(part, { x: x + 252, y: bottom + 158 - i * 30 - j * 10, size: 8, font: flow.fonts.regular, color: MUTED });
          }
        });
      }, 0, "location map");
    }
  }
  if (object) {
    flow.paragraph("Object", { bold: true });
    flow.field("Expected object", object.expected_object);
    flow.field("Result", object.status);
  }
  if (condition) {
    flow.paragraph("Condition", { bold: true });
    if ("score" in condition) flow.field("Overall", `${condition.label}, ${condition.score.toFixed(1)} of 10`);
    else flow.field("Overall", `not assessed (${condition.reason})`);
    for (const aspect of condition.aspects) flow.field(aspect.name, "score" in aspect ? `${(aspect.score as number).toFixed(1)} of 10: ${aspect.reasoning}` : aspect.reasoning);
    if ("not_assessed" in condition) for (const aspect of condition.not_assessed ?? []) flow.field(aspect.name, `not assessed: ${aspect.reasoning}`);
  }
}

function review(flow: PageFlow, content: ReportContent): void {
  const r = content.verification.review;
  if (!r) return;
  flow.heading("Review");
  flow.field("Decision", r.decision.replaceAll("_", " "));
  if (!content.redacted) flow.field("Reviewer", content.reviewer ?? "a former member");
  flow.field("Reviewed", when(r.at));
  if (r.note) flow.field("Note", r.note);
}

function caseAnalysis(flow: PageFlow, content: ReportContent): void {
  const { narrative, case_analysis: analysis } = content.verification;
  if (!narrative && !analysis) return;
  flow.heading("Case analysis");
  if (narrative) flow.field("Narrative", narrative);
  if (!analysis) {
    flow.paragraph("The case analysis has not been written yet.", { size: 9, color: MUTED });
    return;
  }
  flow.field("Overall risk", `${analysis.overall_risk_score.toFixed(2)} (confidence ${analysis.confidence.toFixed(2)}), review priority ${analysis.review_priority}`);
  const dimensions: Array<[string, { score: number; evidence: string; concerns?: string[] } | undefined]> = [
    ["Narrative and images", analysis.dimensions.narrative_image_match],
    ["Across the images", analysis.dimensions.cross_image_consistency],
    ["Physical plausibility", analysis.dimensions.physical_plausibility],
  ];
  for (const [label, dimension] of dimensions) {
    if (!dimension) continue;
    flow.field(label, `${dimension.score.toFixed(2)}: ${dimension.evidence}${dimension.concerns?.length ? ` Concerns: ${dimension.concerns.join("; ")}` : ""}`);
  }
  if (analysis.uncertainty_areas.length > 0) flow.field("Uncertain", analysis.uncertainty_areas.join("; "));
  if (analysis.text_analysis) flow.field("Text analysis", analysis.text_analysis);
  flow.field("Model", analysis.model);
}

/** The certificate link's QR code, in points square. */
const QR_SIZE = 110;

function certificate(flow: PageFlow, content: ReportContent): void {
  if (!content.certificateLinkUrl) return;
  const url = content.certificateLinkUrl;
  const intro = "The signed certificate of this verification, for anyone this report is shared with: open the link or scan the code. It works until the link is revoked.";
  // The section on one page, moved to the next whole when it does not fit: a reader who finds the code
  // finds its URL and what it is (probe of 2026-12-07: the code ended a page, its URL began the next,
  // and once that was fixed the heading and its sentence stayed behind).
  const codeAndLink = flow.blockHeight(QR_SIZE) + flow.paragraphHeight(url, { size: 8 });
  flow.ensure(flow.headingHeight("Certificate") + flow.paragraphHeight(intro, { size: 9 }) + codeAndLink);
  flow.heading("Certificate");
  flow.paragraph(intro, { size: 9 });
  flow.ensure(codeAndLink);
  flow.block(QR_SIZE, (x, bottom) => drawQrCode(flow.page, url, x, bottom, QR_SIZE), 0, "QR code");
  flow.paragraph(url, { size: 8 });
}

function seal(flow: PageFlow, content: ReportContent): void {
  const s = content.verification.record_seal;
  if (!s) return;
  flow.heading("Record seal");
  flow.field(s.algorithm.toUpperCase(), s.hash, { size: 8.5 });
  flow.paragraph("The hash of the sealed record as the API serves it (GET /v1/verifications/{id}, record_seal): a later change to the record would not match it.", { size: 8.5, color: MUTED });
}

function timeline(flow: PageFlow, content: ReportContent): void {
  flow.heading("Timeline");
  const { first, between, last } = content.timeline;
  for (const event of first) flow.field(when(event.occurredAt), event.name, { size: 8.5 });
  if (between > 0) flow.paragraph(`… ${between} more ${between === 1 ? "entry" : "entries"} between (the whole timeline: GET /v1/verifications/{id}/events) …`, { size: 8.5, color: MUTED });
  for (const event of last) flow.field(when(event.occurredAt), event.name, { size: 8.5 });
}
