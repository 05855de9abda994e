import fontkit from "@pdf-lib/fontkit";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { DEJAVU_SANS, DEJAVU_SANS_BOLD } from "../../src/domain/report/fonts/dejavu-sans";
import { offsetMetres, scaleBarMetres } from "../../src/domain/report/location-map";
import { CONTENT_FLOOR, CONTENT_WIDTH, PageFlow } from "../../src/domain/report/page-flow";
import { renderReport, reportLayout, reportText } from "../../src/domain/report/render";
import { encodeJpeg, naturalScene } from "../helpers/synth";
import { locationWords, methodWords, outcomeWords, statusWords } from "../../src/domain/report/words";
import { locationWords as consoleLocationWords } from "../../client/console/lib/geo";
import type { ReportContent } from "../../src/domain/report/content";

/* The evidence report's pure parts: the map's arithmetic, the wording of codes, text flow with hostile text. */

const bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

async function flow(): Promise<PageFlow> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  return new PageFlow(doc, { regular: await doc.embedFont(bytes(DEJAVU_SANS), { subset: true }), bold: await doc.embedFont(bytes(DEJAVU_SANS_BOLD), { subset: true }) });
}

describe("the location map's arithmetic", () => {
  it("places a point 0.001° north about 111 m up, and 0.001° east at 48° about 74 m right", () => {
    const origin = { lat: 48, lng: 11 };
    const north = offsetMetres(origin, { lat: 48.001, lng: 11 });
    expect(north.x).toBeCloseTo(0, 6);
    expect(north.y).toBeCloseTo(111.19, 1);
    expect(offsetMetres(origin, { lat: 48, lng: 11.001 }).x).toBeCloseTo(74.4, 0);
  });

  it("draws a round scale bar near a quarter of the span", () => {
    expect([90, 400, 1000, 2300, 40_000].map(scaleBarMetres)).toEqual([20, 100, 200, 500, 10_000]);
  });
});

describe("the report's words", () => {
  it("says what decided a signal, the service's methods and providers alike", () => {
    expect(methodWords("pixels")).toBe("the service's analysis of the pixels");
    expect(methodWords("perceptual_hash+provider:google, pixels")).toBe("the service's image history (perceptual hash) and the provider google; the service's analysis of the pixels");
    expect(methodWords(undefined)).toBe("not recorded");
    // A depth map comes from the client: the report must not call it the device's (probe of 2026-12-05).
    expect(methodWords("depth_map")).toBe("the depth map uploaded with the photo (the client's, not tied to a camera)");
    expect(statusWords({ status: "not_assessed" })).toBe("could not be checked");
  });

  it("words each signal's outcome, and never reads an unassessed one as a result", () => {
    expect(outcomeWords("screen_detection", { screen_detected: true, confidence: 0.87 })).toBe("screen detected, confidence 87 %");
    expect(outcomeWords("ai_detection", { label: "likely_ai", confidence: 0.9, method: "pixels" })).toBe("likely ai, confidence 90 %");
    // Probe of 2026-12-07: "not found online" was printed where the web was never searched.
    expect(outcomeWords("reverse_search", { found_online: false, match_count: 0, sources: ["service_history"] })).toBe("no earlier match in this tenant's captures (the web was not searched)");
    expect(outcomeWords("reverse_search", { found_online: false, match_count: 2, sources: ["service_history", "shared_history"] })).toBe(
      "seen before: 2 earlier matches in this tenant's or the shared index's captures (the web was not searched)",
    );
    expect(outcomeWords("reverse_search", { found_online: false, match_count: 0, sources: ["service_history", "web"] })).toBe("not found online or in earlier captures");
    expect(outcomeWords("reverse_search", { found_online: true, match_count: 1, sources: ["service_history", "web"] })).toBe("found online, 1 earlier match");
    expect(outcomeWords("reverse_search", { found_online: false, match_count: 0 })).toBe("no earlier match (what was searched is not recorded)");
    // The depth confidence is in a real scene: an anomaly's 5 % must not read as "5 % sure it is fake" (probe of 2026-12-07).
    expect(outcomeWords("depth", { source: "capture_burst", confidence: 0.05 })).toBe("anomaly (capture burst), confidence the scene is real 5 %");
    expect(outcomeWords("depth", { source: "capture_burst", confidence: 0.8 })).toBe("no anomaly (capture burst), confidence the scene is real 80 %");
    expect(outcomeWords("depth", { anomaly: true, source: "capture_burst", confidence: 0.05 })).toBe("anomaly (capture burst), confidence the scene is real 5 %");
    expect(outcomeWords("depth", { status: "not_assessed", reason: "no_capture_integrity" })).toBe("not assessed (no capture integrity)");
    expect(outcomeWords("context_match", { status: "not_applicable", reason: "uploaded_content" })).toBe("not applicable to uploaded images");
    expect(outcomeWords("depth", undefined)).toBe("not recorded");
  });

  it("says which cause left the location uncompared: the address, or the captures' missing fix (report and console alike)", () => {
    const noFix = { status: "ungeocoded", expected_point: { lat: 48.8584, lng: 2.2945 } };
    const noAddress = { status: "ungeocoded", expected_point: null };
    expect(locationWords(noFix)).toBe("not compared (the captures carried no location)");
    expect(locationWords(noAddress)).toBe("not compared (the address could not be found)");
    expect(consoleLocationWords(noFix)?.[0]).toBe("Not compared (no location on the photos)");
    expect(consoleLocationWords(noAddress)?.[0]).toBe("Not compared (the address was not found)");
    expect(locationWords({ status: "rejected", expected_point: null })).toBe("the device reported a mock location");
    // Probe of 2026-12-06: a fix too coarse to compare was reported as "the captures carried no location".
    const coarse = { ...noFix, observed_point: { lat: 48.86, lng: 2.29 } };
    expect(locationWords(coarse)).toBe("not compared (the location fix was too coarse to place the capture: worse than ±1 000 m)");
    expect(consoleLocationWords(coarse)?.[0]).toBe("Not compared (the location fix was too coarse)");
  });
});

describe("text flow", () => {
  it("prints control characters as nothing, line breaks as spaces and characters the fonts lack as ?", async () => {
    const f = await flow();
    expect(f.clean("Ünïcødé Ελλάς Кириллица\nline\ttab\u0007bell 漢字 😀")).toBe("Ünïcødé Ελλάς Кириллица line tabbell ?? ?");
  });

  it("cuts a 2 000-character token into lines that fit, losing nothing", async () => {
    const f = await flow();
    const token = "A1b2".repeat(500);
    const lines = f.wrap(token, CONTENT_WIDTH, f.fonts.regular, 9);
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.join("")).toBe(token);
    for (const line of lines) expect(f.fonts.regular.widthOfTextAtSize(line, 9)).toBeLessThanOrEqual(CONTENT_WIDTH);
    // Cut where it must: each line but the last is full (one more character would not fit).
    for (const [i, line] of lines.slice(0, -1).entries()) expect(f.measure(line + token[(lines.slice(0, i + 1).join("")).length]!, f.fonts.regular, 9)).toBeGreaterThan(CONTENT_WIDTH);
  });

  it("renders a verification with no verdict and no capture, and one full of hostile text, as readable PDFs", async () => {
    const base = {
      generatedAt: "2026-11-27T09:00:00.000Z",
      issuer: "https://verify.example.com",
      tenant: { id: "tnt_1", displayName: "Ａｃｍｅ\u0000 保険", verifiedDomain: null },
      verification: { id: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", status: "pending", capture_url: "x", created_at: "2026-11-27T09:00:00.000Z", expires_at: "2026-11-28T09:00:00.000Z", captures_count: 0, captures: [], config: { max_captures: 1, steps: [], signals_required: ["screen"] } },
      signals: {},
      captures: [],
      reviewer: null,
      timeline: { first: [], between: 0, last: [] },
      certificateLinkUrl: null,
      redacted: false,
    } as unknown as ReportContent;
    const hostile = { ...base, verification: { ...base.verification, answers: { a: { value: "\u202e".repeat(50) + "x".repeat(2000), answered_at: "2026-11-27T09:00:00.000Z" } } } } as ReportContent;
    for (const content of [base, hostile]) {
      const pdf = await renderReport(content);
      const doc = await PDFDocument.load(pdf);
      expect(doc.getPageCount()).toBeGreaterThanOrEqual(1);
      // Pending and unexpired: the id is the capture link's credential, so only its time part is shown (see below).
      expect(doc.getTitle()).toBe("Evidence report vfy_01JD2Y4N9M…");
    }
  });
});

describe("what the report says stays true", () => {
  const content = (over: { tenant?: Partial<ReportContent["tenant"]>; verification?: Record<string, unknown>; reviewer?: string | null } = {}) =>
    ({
      generatedAt: "2026-11-27T09:00:00.000Z",
      issuer: "https://verify.example.com",
      tenant: { id: "tnt_1", displayName: "Acme", verifiedDomain: null, ...over.tenant },
      verification: {
        id: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
        status: "completed",
        capture_url: "x",
        created_at: "2026-11-27T08:00:00.000Z",
        completed_at: "2026-11-27T08:30:00.000Z",
        expires_at: "2026-11-28T08:00:00.000Z",
        captures_count: 0,
        captures: [],
        config: { max_captures: 1, steps: [], signals_required: ["screen"] },
        ...over.verification,
      },
      signals: {},
      captures: [],
      reviewer: over.reviewer === undefined ? null : over.reviewer,
      timeline: { first: [], between: 0, last: [] },
      certificateLinkUrl: null,
      redacted: false,
    }) as unknown as ReportContent;

  it("prints a proved domain on a line of its own, never inside the name the tenant typed", async () => {
    // A declared name built to pass for the service's own words about a domain.
    const lines = await reportText(content({ tenant: { displayName: "Acme (domain proved: bank.example)", verifiedDomain: "acme.example" } }));
    const at = lines.indexOf("acme.example");
    expect(at, lines.join("\n")).toBeGreaterThan(0);
    expect(lines[at - 1]).toBe("Proved domain");
    for (const line of lines.filter((l) => l.includes("Acme"))) expect(line).not.toContain("acme.example");
    expect(lines).toContain("Acme (domain proved: bank.example) (as the tenant typed it; not checked)");
    // Without a proved domain there is no such line.
    const plain = await reportText(content({ tenant: { displayName: "Acme" } }));
    expect(plain).not.toContain("Proved domain");
    expect(plain).toContain("Acme (name as the tenant declared it)");
  });

  it("does not print the capture credential of a verification that can still take captures, and says why", async () => {
    const id = "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z";
    for (const status of ["pending", "partially_captured", "abandoned"]) {
      const lines = await reportText(content({ verification: { status, completed_at: undefined } }));
      expect(lines.join("\n")).not.toContain(id);
      expect(lines).toContain("vfy_01JD2Y4N9M…");
      expect(lines.join(" ")).toMatch(/withheld: while captures can still be taken, the full id is the capture link's\s+credential/);
    }
    // Expired, completed or redacted: it takes no capture any more, and the id is printed whole.
    for (const verification of [{ status: "pending", expires_at: "2026-11-27T08:59:00.000Z" }, { status: "completed" }, { status: "pending", redacted_at: "2026-11-27T08:40:00.000Z" }]) {
      const lines = await reportText(content({ verification }));
      expect(lines, JSON.stringify(verification)).toContain(id);
      expect(lines.join(" ")).not.toMatch(/withheld/);
    }
  });

  // Probe of 2026-12-07: "No verdict yet: the evidence has not been analysed." on expired and failed
  // verifications (no verdict will come) and beside analysed captures; "Link expires" on every report,
  // also once the capture link was closed; the closing note sent readers of a redacted report to text
  // the API no longer holds.
  it("says why there is no verdict, when the capture link closes or closed, and where the text as written is", async () => {
    const said = async (verification: Record<string, unknown>, over: Partial<ReportContent> = {}) => (await reportText({ ...content({ verification }), ...over } as ReportContent)).join(" ");
    const open = await said({ status: "partially_captured", completed_at: undefined });
    expect(open).toContain("No verdict yet: the evidence is not complete, or its analysis is still running.");
    expect(open).toMatch(/Capture link open until 2026-11-28/);
    const expired = await said({ status: "expired", completed_at: undefined });
    expect(expired).toContain("No verdict: the capture link expired before the evidence was complete.");
    expect(expired).toMatch(/Capture link closed \(expired 2026-11-28/);
    const failed = await said({ status: "failed", completed_at: undefined, failure_reason: "no_evidence" });
    expect(failed).toContain("No verdict: the verification failed (no_evidence).");
    expect(failed).toMatch(/Capture link closed/);
    expect(await said({ status: "completed" })).toMatch(/Capture link closed/);
    for (const text of [open, expired, failed]) expect(text).not.toContain("has not been analysed");

    const name = { tenant: { id: "tnt_1", displayName: "شركة", verifiedDomain: null } };
    expect(await said({ status: "completed" }, name)).toContain("The text as written (answers, notes, narrative, metadata) is in the console and in GET /v1/verifications/{id}.");
    const erased = await said({ status: "completed", redacted_at: "2026-11-27T08:40:00.000Z" }, { ...name, redacted: true });
    expect(erased).not.toContain("is in the console and in GET /v1/verifications/{id}");
    expect(erased).toContain("The names as written are in the console");
  });

  // Console probe of 2026-12-04: an Arabic narrative printed as "??????? ?????? ??", and nothing said text was lost.
  it("says how many characters it printed as ?, on every page and in a closing note, and nothing when it printed all", async () => {
    const config = (metadata: Record<string, string>) => ({ max_captures: 1, steps: [], signals_required: ["screen"], metadata });
    const lines = await reportText(content({ verification: { config: config({ claim: "مطالبة-٧٧" }), narrative: "Front bumper dented.", review: { decision: "approved", by: "usr_1", at: "2026-11-27T08:45:00.000Z", note: "OK שלום" } } }));
    const unprintable = [..."مطالبة٧٧שלום"].length;
    expect(lines).toContain("Text this report could not print");
    expect(lines.join(" ")).toContain(`${unprintable} characters were printed as “?”: this report's font covers Latin, Greek and Cyrillic only.`);
    const footers = lines.flatMap((line, i) => (line.startsWith("Evidence report vfy_") ? [lines[i + 1]!] : []));
    expect(footers.length).toBeGreaterThan(0);
    const measure = await flow();
    for (const footer of footers) {
      expect(footer).toBe(`“?” marks ${unprintable} characters this report's font cannot print (see “Text this report could not print”)`);
      expect(measure.measure(footer, measure.fonts.regular, 7.5)).toBeLessThanOrEqual(CONTENT_WIDTH);
    }
    const latin = await reportText(content({ verification: { config: config({ claim: "C-77" }) } }));
    expect(latin.join(" ")).toContain("claim: C-77");
    expect(latin).not.toContain("Text this report could not print");
    expect(latin.some((line) => line.includes("cannot print"))).toBe(false);
  });

  it("heads a verdict that evaluated nothing NOT ASSESSED, never with its label", async () => {
    const verdict = (assessment: string) => ({ label: "verified", score: 0, assessment, not_assessed: [], signals: { screen_detection: { status: "not_applicable" } } });
    const none = await reportText(content({ verification: { verdict: verdict("none") } }));
    const headline = none[none.indexOf("Verdict") + 1];
    expect(headline).toBe("NOT ASSESSED");
    expect(none).not.toContain("VERIFIED");
    expect(none.join(" ")).toContain("no check could be made");
    const checked = await reportText(content({ verification: { verdict: { ...verdict("complete"), score: 0.9, signals: { screen_detection: { status: "assessed", detected: false } } } } }));
    expect(checked[checked.indexOf("Verdict") + 1]).toBe("VERIFIED");
  });

  // Probe of 2026-12-07: the certificate's QR code at the foot of one page, its URL at the top of the next.
  it("keeps the certificate's QR code and its URL on one page, wherever the section falls", async () => {
    const url = "https://verify.example.com/v1/certificates/ctk_Yx3r9QeLk2Vw8pZs4Nd7Hb1Mf6Tc0Ja5";
    // Sections between the answers and the certificate: none, a review, or a review, a narrative and an object
    // check. Their heights are 0, 2 and 6 pt short of a multiple of a field's (13.3 pt), so with 0 to 53
    // one-line answers the certificate section starts at every height of a page, at most 7.3 pt apart: less
    // than a line of its URL (11.2 pt), the room that was missing.
    const review = { review: { decision: "approved", by: "usr_1", at: "2026-11-27T08:45:00.000Z" } };
    const variants = [{}, review, { ...review, narrative: "Front bumper dented.", object_match: { expected_object: "a bicycle", status: "matched" } }];
    let betweenCodeAndLink = 0;
    for (let answered = 0; answered <= 53; answered++) {
      for (const [variant, extra] of variants.entries()) {
        const answers = Object.fromEntries(Array.from({ length: answered }, (_, i) => [`step_${i}`, { value: `answer ${i}`, answered_at: "2026-11-27T08:10:00.000Z" }]));
        const layout = await reportLayout({ ...content({ verification: { answers, ...extra } }), certificateLinkUrl: url } as ReportContent);
        const at = `${answered} answers, sections ${variant}`;
        const qr = layout.find((p) => p.what === "[QR code]");
        const link = layout.find((p) => p.what === url);
        expect(qr && link, at).toBeTruthy();
        expect(link!.page, `${at}: the QR code on page ${qr!.page + 1}, its URL on page ${link!.page + 1}`).toBe(qr!.page);
        // The case the probe met: the section begins where its lines fit but not its code and URL. The whole
        // section then moves, so what is counted is a section the page break came before, its last line
        // above with room under it for the code (and the spacing before it).
        const heading = layout.find((p) => p.what === "Certificate")!;
        const above = layout[layout.indexOf(heading) - 1]!;
        if (above.page < heading.page && above.bottom - CONTENT_FLOOR >= qr!.top - qr!.bottom + 9) betweenCodeAndLink++;
      }
    }
    expect(betweenCodeAndLink).toBeGreaterThan(0);
  });

  // Probe of 2026-12-07: a capture's title was kept with 120 pt after it, its photo up to 206 pt tall,
  // and the certificate's heading stayed behind once its code and URL moved together.
  it("keeps each capture's title with its photo, and the certificate's heading with its code, wherever they fall", async () => {
    const jpeg = encodeJpeg(naturalScene(320, 240, 7), 80);
    const capture = (n: number) => ({
      view: { id: `cap_${n}`, step_key: `photo_${n}`, source: "live", created_at: "2026-11-27T08:10:00.000Z", media_type: "image/jpeg", size_bytes: 1000, sha256: "ab".repeat(32), analysis: { status: "completed", signals: {} } },
      image: { jpeg },
      credentials: false,
    });
    const url = "https://verify.example.com/v1/certificates/ctk_Yx3r9QeLk2Vw8pZs4Nd7Hb1Mf6Tc0Ja5";
    let titlesOpeningAPage = 0;
    for (let answered = 0; answered <= 53; answered += 2) {
      const answers = Object.fromEntries(Array.from({ length: answered }, (_, i) => [`step_${i}`, { value: `answer ${i}`, answered_at: "2026-11-27T08:10:00.000Z" }]));
      const base = content({ verification: { answers } });
      const layout = await reportLayout({ ...base, captures: [capture(1), capture(2), capture(3)], certificateLinkUrl: url } as unknown as ReportContent);
      for (const n of [1, 2, 3]) {
        const title = layout.find((p) => p.what.startsWith(`${n}. Step "photo_${n}"`))!;
        const photo = layout[layout.indexOf(title) + 1]!;
        expect(photo.what, `${answered} answers, capture ${n}`).toBe("[image]");
        expect(photo.page, `${answered} answers: capture ${n}'s title on page ${title.page + 1}, its photo on ${photo.page + 1}`).toBe(title.page);
        if (layout[layout.indexOf(title) - 1]!.page < title.page) titlesOpeningAPage++;
      }
      const heading = layout.find((p) => p.what === "Certificate")!;
      const qr = layout.find((p) => p.what === "[QR code]")!;
      expect(qr.page, `${answered} answers: the certificate's heading on page ${heading.page + 1}, its code on ${qr.page + 1}`).toBe(heading.page);
    }
    // The case the probe met was laid out: titles that a page break came before.
    expect(titlesOpeningAPage).toBeGreaterThan(0);
  });

  it("names a reviewer by address only while gathered as a member; otherwise a former member", async () => {
    const review = { decision: "approved", by: "usr_1", at: "2026-11-27T08:45:00.000Z" };
    const named = await reportText(content({ verification: { review }, reviewer: "ops@acme.example" }));
    expect(named[named.indexOf("Reviewer") + 1]).toBe("ops@acme.example");
    const former = await reportText(content({ verification: { review }, reviewer: null }));
    expect(former[former.indexOf("Reviewer") + 1]).toBe("a former member");
  });
});
