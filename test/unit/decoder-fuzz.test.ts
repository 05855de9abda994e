import { beforeAll, describe, expect, it } from "vitest";
import { FUZZ_TARGETS, fuzzInput, fuzzSeeds, mediaTypeOf, runFuzzTarget, type FuzzTarget } from "../helpers/fuzz";
import { samplePhoto } from "../helpers/photos";

// Every decoder and metadata reader on seeded truncated, overwritten and header-lying inputs
// (test/helpers/fuzz.ts), inside workerd. The suite runs a few hundred inputs per target; the full
// run (thousands per target, CPU and memory measured per input in a fresh workerd per target) is
// `npm run bench:fuzz`, its figures in bench/PERF-RESULTS.md. An input that fails names its run
// seed and index: `fuzzInput(seeds, type, RUN_SEED, index)` rebuilds it.
const RUN_SEED = 2611;
const INPUTS_PER_TARGET = 200;

/**
 * No input may take longer than this (wall time, which bounds its CPU time), here on seeds of a few
 * KB. A liveness bound for a shared, loaded machine; bench/PERF-RESULTS.md has the measured CPU.
 */
const PER_INPUT_MS = 3_000;

const ALLOWED: Record<FuzzTarget, string[]> = {
  jpeg: ["decoded", "undecodable_image", "image_too_large"],
  "progressive-jpeg": ["decoded", "undecodable_image", "image_too_large"],
  png: ["decoded", "undecodable_image", "image_too_large"],
  "webp-lossy": ["decoded", "undecodable_image", "image_too_large"],
  "webp-lossless": ["decoded", "undecodable_image", "image_too_large"],
  heif: ["decoded", "undecodable_image", "image_too_large"],
  "depth-map": ["decoded", "undecodable_image", "image_too_large"],
  "burst-strip": ["decoded", "undecodable_image"],
  exif: ["read"],
  "png-chunks": ["read"],
  "webp-chunks": ["read"],
  c2pa: ["read", "refused"],
};

let seeds: Record<FuzzTarget, Uint8Array[]>;

beforeAll(async () => {
  seeds = await fuzzSeeds(samplePhoto);
});

describe("decoders and metadata readers fuzzed (seeded, inside workerd)", () => {
  for (const target of FUZZ_TARGETS) {
    it(`${target}: ${INPUTS_PER_TARGET} truncated, overwritten and lying inputs end in an outcome of the error model, each within ${PER_INPUT_MS} ms`, async () => {
      // The unmutated seeds are read or decoded: what the fuzz refuses, it refuses for the mutation.
      for (const seed of seeds[target]) expect(await runFuzzTarget(target, seed)).toBe(ALLOWED[target][0]);
      const outcomes = new Map<string, number>();
      const slow: string[] = [];
      for (let index = 0; index < INPUTS_PER_TARGET; index += 1) {
        const { bytes, mutations } = fuzzInput(seeds[target], mediaTypeOf(target), RUN_SEED, index);
        const start = performance.now();
        const outcome = await runFuzzTarget(target, bytes);
        const ms = performance.now() - start;
        if (ms > PER_INPUT_MS) slow.push(`input ${index} (${mutations.join(", ")}): ${Math.round(ms)} ms`);
        const key = ALLOWED[target].includes(outcome) ? outcome : `${outcome} [input ${index}: ${mutations.join(", ")}]`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
      expect([...outcomes.keys()].filter((o) => !ALLOWED[target].includes(o))).toEqual([]);
      expect(slow).toEqual([]);
      // The run reached both sides: some inputs refused and, for the decoders, some still decoded.
      if (ALLOWED[target].includes("decoded")) {
        expect(outcomes.get("decoded") ?? 0).toBeGreaterThan(0);
        expect(outcomes.get("undecodable_image") ?? 0).toBeGreaterThan(0);
      }
    }, 600_000);
  }
});
