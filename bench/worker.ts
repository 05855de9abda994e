/**
 * The benchmark's Worker (run by bench/decode.ts under `wrangler dev`, i.e. inside workerd).
 * `POST /decode?type=image/jpeg` decodes the request body, or with an empty body the input bundled
 * as a Data module (held in the isolate as the analysis consumer holds a capture's bytes from R2),
 * as the analysis does: overview, moiré tiles, vision-sized thumbnail. `POST /analyze?type=…` runs
 * one capture's whole offline analysis the same way.
 */
import { analyzeImage } from "../src/analysis/analyze-image";
import { decodeImage } from "../src/analysis/decoders";
import { screenTileRects } from "../src/analysis/signals/screen-moire";

// A Data module (wrangler.toml rules), copied there by bench/decode.ts before each start.
import input from "../.cache/bench-input.bin";

const held = new Uint8Array(input);

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const type = url.searchParams.get("type") ?? "image/jpeg";
    const body = new Uint8Array(await request.arrayBuffer());
    const bytes = body.length > 0 ? body : held;
    try {
      if (url.pathname === "/decode") {
        const image = await decodeImage(bytes, type, { tiles: screenTileRects, thumbnailMaxSide: 1024 });
        return Response.json({ width: image.width, height: image.height, overview: [image.overview.width, image.overview.height], tiles: image.tiles.length });
      }
      const result = await analyzeImage(
        { captureId: "cap_bench", tenantId: "tnt_bench", bytes, mediaType: type, uploaded: false, depthPng: null, location: null, clientCapturedAt: null, required: ["screen", "ai", "reverse", "depth"] },
        { nearDuplicates: async () => [], vision: null, web: null, trustedSigners: [] },
      );
      return Response.json({ dimensions: result.dimensions, notes: result.notes, decode_error: result.decode_error });
    } catch (err) {
      return Response.json({ error: String(err), reason: (err as { reason?: string }).reason ?? null }, { status: 422 });
    }
  },
};
