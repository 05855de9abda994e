// The bench's Worker for @contentauth/c2pa-wasm (the reference implementation compiled to WebAssembly).
// @ts-expect-error: resolved by the bench's esbuild alias to the unpacked npm package (bench/c2pa.ts).
import { initSync, WasmReader } from "c2pa-wasm";
// @ts-expect-error: a CompiledWasm module given to Miniflare.
import wasm from "c2pa-wasm-module";

let ready: unknown = null;
const GENERATED = /(trainedAlgorithmicMedia|compositeWithTrainedAlgorithmicMedia|algorithmicMedia|compositeSynthetic)"/;

export default {
  async fetch(request: Request): Promise<Response> {
    try {
      ready ??= initSync({ module: wasm });
      const bytes = new Uint8Array(await request.arrayBuffer());
      const reader = await WasmReader.fromBytes(request.headers.get("content-type") ?? "image/jpeg", bytes);
      const json = reader.json() as string;
      const store = JSON.parse(json) as { manifests?: Record<string, unknown>; validation_state?: string };
      reader.free();
      return Response.json({ read: true, ai: GENERATED.test(json), valid: store.validation_state !== "Invalid", trusted: store.validation_state === "Trusted", manifests: Object.keys(store.manifests ?? {}).length });
    } catch (err) {
      return Response.json({ error: String(err).slice(0, 300) });
    }
  },
};
