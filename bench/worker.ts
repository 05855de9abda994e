/**
 * The benchmark's Worker (run by bench/decode.ts under `wrangler dev`, i.e. inside workerd).
 * `POST /decode?type=image/jpeg` decodes the request body, or with an empty body the input bundled
 * as a Data module (held in the isolate as the analysis consumer holds a capture's bytes from R2),
 * as the analysis does: overview, moiré tiles, vision-sized thumbnail. `POST /analyze?type=…` runs
 * one capture's whole offline analysis the same way (the evidence thumbnail encoded, not stored); with `&fakes=<url>` every provider is
 * configured, against the loopback fakes at that URL (test/fakes: web detection and a vision judge),
 * and the verification asks for every signal and check. `POST /fuzz?target=…` runs one fuzz input
 * (the body) through a decoder or metadata reader (test/helpers/fuzz.ts). `POST /depth` reads the
 * body as a capture's depth map (forensic buffer) and runs the depth signal on it. `POST /report`
 * renders an evidence report whose every capture shows the body as its thumbnail (bench/report.ts).
 * With bench/credentials.wrangler.toml (an R2 bucket `EVIDENCE`), `PUT /credentials/object?key=…`
 * stores the body and `POST /credentials/sign?key=…&type=…&size=…` signs it as a Content Credentials
 * download does (domain/credentials/serve.ts `signAndStore`), answering with the signed copy.
 */
import { analyzeImage, type ImageDeps, type ImageInput } from "../src/analysis/analyze-image";
import { decodeImage } from "../src/analysis/decoders";
import { analyzeDepthPng } from "../src/analysis/signals/depth-plane";
import { screenTileRects } from "../src/analysis/signals/screen-moire";
import { evidenceThumbnail } from "../src/analysis/thumbnail";
import { openAiCompatibleVisionJudge } from "../src/providers/vision";
import { googleWebDetection } from "../src/providers/web-search";
import { FUZZ_TARGETS, runFuzzTarget, type FuzzTarget } from "../test/helpers/fuzz";
import { renderReport } from "../src/domain/report/render";
import { benchReportContent } from "./lib/report-content";
import { signAndStore } from "../src/domain/credentials/serve";
import { isSignable } from "../src/domain/credentials/offer";
import { benchCredentials } from "./lib/credentials";

// A Data module (wrangler.toml rules), copied there by bench/decode.ts before each start.
import input from "../.cache/bench-input.bin";

const held = new Uint8Array(input);

export default {
  async fetch(request: Request, env: { EVIDENCE?: R2Bucket }): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/credentials/")) {
      // Before the body is read: the signing reads its image from R2, as a download does.
      if (!env.EVIDENCE) return Response.json({ error: "run with bench/credentials.wrangler.toml (an EVIDENCE bucket)" }, { status: 500 });
      const key = url.searchParams.get("key") ?? "";
      if (url.pathname === "/credentials/object") {
        await env.EVIDENCE.put(key, request.body!);
        return Response.json({ stored: key });
      }
      const type = url.searchParams.get("type") ?? "";
      if (!isSignable(type)) return Response.json({ error: `not signable: ${type}` }, { status: 400 });
      const { config, kid, facts } = await benchCredentials(type, Number(url.searchParams.get("size")));
      // Each request signs anew (a download would serve the stored copy instead).
      await env.EVIDENCE.delete(`${key}.c2pa`);
      const signing = await signAndStore(env.EVIDENCE, { imageKey: key, sizeBytes: Number(url.searchParams.get("size")), mediaType: type }, facts, config, kid, `${key}.c2pa`);
      if (!signing) return Response.json({ error: `a copy was stored under ${key}.c2pa meanwhile` }, { status: 409 });
      const { signed, sha256 } = signing;
      return new Response(signed, { headers: { ETag: `"${sha256}"`, "Content-Type": type } });
    }
    const type = url.searchParams.get("type") ?? "image/jpeg";
    const body = new Uint8Array(await request.arrayBuffer());
    const bytes = body.length > 0 ? body : held;
    try {
      if (url.pathname === "/decode") {
        const image = await decodeImage(bytes, type, { tiles: screenTileRects, thumbnailMaxSide: 1024 });
        return Response.json({ width: image.width, height: image.height, overview: [image.overview.width, image.overview.height], tiles: image.tiles.length });
      }
      if (url.pathname === "/report") {
        // The body is the evidence thumbnail every capture of the report shows (bench/report.ts).
        const photos = Number(url.searchParams.get("photos") ?? "20");
        const size = { width: Number(url.searchParams.get("width") ?? "480"), height: Number(url.searchParams.get("height") ?? "360") };
        const pdf = await renderReport(benchReportContent(photos, { jpeg: bytes, ...size }, { worst: url.searchParams.get("worst") === "1" }));
        return Response.json({ bytes: pdf.length });
      }
      if (url.pathname === "/depth") {
        const depth = analyzeDepthPng(bytes);
        return Response.json({ outcome: `depth ${depth.source}${depth.anomaly ? ", planar" : ""}` });
      }
      if (url.pathname === "/fuzz") {
        const target = url.searchParams.get("target") as FuzzTarget;
        if (!FUZZ_TARGETS.includes(target)) return Response.json({ error: `unknown target ${target}` }, { status: 400 });
        return Response.json({ outcome: await runFuzzTarget(target, bytes) });
      }
      const fakes = url.searchParams.get("fakes");
      const input: ImageInput = { captureId: "cap_bench", tenantId: "tnt_bench", bytes, mediaType: type, uploaded: false, depthPng: null, channel: "api", captureIntegrity: null, location: null, clientCapturedAt: null, required: ["screen", "ai", "reverse", "depth"] };
      // The evidence thumbnail is made as the pipeline makes it (fitted, turned upright, encoded), not stored.
      const deps: ImageDeps = { searchHistory: async () => ({ matches: [], shared: false }), vision: null, web: null, trustedSigners: [], thumbnail: async (t) => void (await evidenceThumbnail(t, bytes)) };
      if (fakes) {
        input.required = ["screen", "ai", "reverse", "depth", "context"];
        input.context = { kind: "vehicle", summary: "A silver hatchback, front left" };
        input.expectedObject = "a car";
        input.conditionAspects = ["bodywork", "tyres"];
        deps.web = googleWebDetection({ apiKey: "similar", url: `${fakes}/web-detection` });
        deps.vision = openAiCompatibleVisionJudge({ url: `${fakes}/vision/v1`, model: "good" });
      }
      const result = await analyzeImage(input, deps);
      return Response.json({ dimensions: result.dimensions, notes: result.notes, decode_error: result.decode_error, reverse: result.signals.reverse_search, vision: result.vision?.error ?? "ok" });
    } catch (err) {
      return Response.json({ error: String(err), reason: (err as { reason?: string }).reason ?? null }, { status: 422 });
    }
  },
};
