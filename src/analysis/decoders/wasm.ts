/**
 * A codec's compiled WebAssembly module. Workers refuse to compile WebAssembly from bytes at run
 * time, so the `.wasm` is imported as a module (wrangler and the vitest pool bundle it as
 * CompiledWasm). Node (the evaluation script and the Node side of benches, run with tsx) cannot
 * import `.wasm` that way: there it is compiled from the package's file.
 */
export async function compiledWasm(imported: () => Promise<{ default: unknown }>, specifier: string): Promise<WebAssembly.Module> {
  try {
    const module = (await imported()).default;
    if (module instanceof WebAssembly.Module) return module;
  } catch {
    // Not a bundler that knows `.wasm` imports: Node below.
  }
  const { readFile } = await import("node:fs/promises");
  const { createRequire } = await import("node:module");
  const compile = (WebAssembly as unknown as { compile(bytes: Uint8Array): Promise<WebAssembly.Module> }).compile;
  return compile(await readFile(createRequire(import.meta.url).resolve(specifier)));
}
