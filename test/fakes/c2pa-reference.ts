import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { WasmReader as Reader } from "@contentauth/c2pa-wasm";
import type { FakeHandler } from "./server";

/*
 * The reference C2PA implementation (c2pa-rs, compiled to WebAssembly: @contentauth/c2pa-wasm), run
 * in Node for tests inside workerd: `POST /c2pa-reference?format=<media type>` with an asset's bytes
 * answers what it validates. It shares no code with c2pa-ts, which signs the service's Content
 * Credentials, so a manifest both accept is read the same by two independent implementations. The
 * trust anchor is the test run's development root (vitest.config.ts, C2PA_TEST_ROOT_PEM).
 */
let ready: Promise<typeof Reader> | undefined;

/** Loaded on the first validation only: the other fakes never wait for 9 MB of WebAssembly. */
function reader(): Promise<typeof Reader> {
  ready ??= (async () => {
    const { default: init, WasmReader } = await import("@contentauth/c2pa-wasm");
    await init({ module_or_path: readFileSync(createRequire(import.meta.url).resolve("@contentauth/c2pa-wasm/c2pa.wasm")) });
    return WasmReader;
  })();
  return ready;
}

export interface ReferenceValidation {
  validation_state: string;
  success: string[];
  failure: { code: string; explanation?: string }[];
  signer: { common_name?: string; issuer?: string; alg?: string } | null;
  claim_generator: string | null;
  assertions: Record<string, unknown>;
  /** The label of every manifest in the store, and the active one. */
  manifests: string[];
  active_manifest: string | null;
  /** The active manifest's ingredients as the reference reads them (`active_manifest`: the label of the ingredient's manifest in this store). */
  ingredients: { relationship?: string; active_manifest?: string; description?: string; validation_results?: unknown }[];
  /** What the reference found validating each ingredient's manifest (its `ingredientDeltas`), failure and success codes. */
  ingredient_deltas: { failure: string[]; success: string[] }[];
}

export const c2paReference: FakeHandler = async (req) => {
  const format = req.query.get("format") ?? "";
  if (req.method !== "POST" || !format) return { status: 400, body: JSON.stringify({ error: "POST the asset with ?format=" }) };
  const WasmReader = await reader();
  const settings = JSON.stringify({ verify: { verify_trust: true }, trust: { trust_anchors: process.env.C2PA_TEST_ROOT_PEM ?? "" } });
  let store: {
    active_manifest?: string;
    validation_state?: string;
    validation_results?: {
      activeManifest?: { success?: { code: string }[]; failure?: { code: string; explanation?: string }[] };
      ingredientDeltas?: { validationDeltas?: { success?: { code: string }[]; failure?: { code: string }[] } }[];
    };
    manifests?: Record<
      string,
      { signature_info?: ReferenceValidation["signer"]; claim_generator_info?: { name?: string }[]; assertions?: { label: string; data: unknown }[]; ingredients?: ReferenceValidation["ingredients"] }
    >;
  };
  try {
    const read = await WasmReader.fromBytes(format, new Uint8Array(req.body), settings);
    store = JSON.parse(read.json());
    read.free();
  } catch (err) {
    const unreadable: ReferenceValidation = {
      validation_state: "Unreadable",
      success: [],
      failure: [{ code: "unreadable", explanation: String(err) }],
      signer: null,
      claim_generator: null,
      assertions: {},
      manifests: [],
      active_manifest: null,
      ingredients: [],
      ingredient_deltas: [],
    };
    return { status: 200, body: JSON.stringify(unreadable) };
  }
  const manifest = store.active_manifest ? store.manifests?.[store.active_manifest] : undefined;
  const out: ReferenceValidation = {
    validation_state: store.validation_state ?? "Unknown",
    success: (store.validation_results?.activeManifest?.success ?? []).map((s) => s.code),
    failure: store.validation_results?.activeManifest?.failure ?? [],
    signer: manifest?.signature_info ?? null,
    claim_generator: manifest?.claim_generator_info?.[0]?.name ?? null,
    assertions: Object.fromEntries((manifest?.assertions ?? []).map((a) => [a.label, a.data])),
    manifests: Object.keys(store.manifests ?? {}),
    active_manifest: store.active_manifest ?? null,
    ingredients: (manifest?.ingredients ?? []).map(({ relationship, active_manifest, description, validation_results }) => ({ relationship, active_manifest, description, validation_results })),
    ingredient_deltas: (store.validation_results?.ingredientDeltas ?? []).map((d) => ({
      failure: (d.validationDeltas?.failure ?? []).map((f) => f.code),
      success: (d.validationDeltas?.success ?? []).map((f) => f.code),
    })),
  };
  return { status: 200, body: JSON.stringify(out) };
};
