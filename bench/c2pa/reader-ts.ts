// The bench's Worker for c2pa-ts (the reader in use): POST an image, get what it declares.
import { detectAiProvenance } from "../../src/analysis/signals/ai-provenance";
import { readMetadata } from "../../src/analysis/metadata";

export default {
  async fetch(request: Request): Promise<Response> {
    const bytes = new Uint8Array(await request.arrayBuffer());
    const type = request.headers.get("content-type") ?? "image/jpeg";
    try {
      // The whole metadata read (EXIF, XMP, C2PA) as the analysis does it, once.
      const meta = await readMetadata(bytes, type, []);
      const summary = meta.c2pa;
      const ai = detectAiProvenance(meta);
      return Response.json({ read: summary !== null, ai: ai.label === "likely_ai", valid: summary?.valid ?? false, trusted: summary?.trusted ?? false, manifests: summary?.manifests.length ?? 0 });
    } catch (err) {
      return Response.json({ error: String(err) });
    }
  },
};
