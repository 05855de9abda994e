/**
 * Content Credentials signing at the 25 MB bound, inside workerd (`npm run bench:credentials`): one
 * fresh `wrangler dev` of bench/worker.ts with an R2 bucket (bench/credentials.wrangler.toml) signs a
 * JPEG and a PNG of noise just under CREDENTIALS_MAX_BYTES (25 000 000 bytes; noise keeps the coded
 * image as large as the file) through domain/credentials/serve.ts `signAndStore`, the code a download
 * runs: the received image read whole from R2, embedCredentials (c2pa-ts), the copy's SHA-256, the
 * copy stored in R2, then answered. Two phases per format, after a warm-up on the committed samples:
 *
 * 1. time: `--signings` signings in a row, the workerd processes' CPU per signing (/proc, 10 ms ticks;
 *    every process of `wrangler dev`, the local R2 included: an upper bound of the isolate's own)
 *    and the wall time;
 * 2. memory: the same again while the V8 inspector samples the isolate's heap (JavaScript objects +
 *    ArrayBuffer backing stores, which is what a Worker's 128 MB limits): as it is, garbage included,
 *    and every fourth sample after the full collection a heap snapshot forces (a lower bound of the
 *    live peak); the heap snapshots cost CPU, so this phase's times are not reported.
 *
 *   npm run bench:credentials
 *   npm run bench:credentials -- --signings 5 --bytes 10000000
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { crc32, deflateSync } from "node:zlib";
import jpeg from "jpeg-js";
import { freePort } from "../scripts/local-worker.mjs";
import { readC2pa } from "../src/analysis/c2pa";
import { CREDENTIALS_MAX_BYTES } from "../src/domain/credentials/offer";
import { connectInspector, type Inspector } from "./lib/inspector";
import { load, machine, median } from "./lib/measure";
import { cpuMs, resetPeak, ROOT, startWorkerd, status, stopWorkerd } from "./lib/workerd";

const { values: args } = parseArgs({ options: { signings: { type: "string", default: "3" }, bytes: { type: "string", default: String(CREDENTIALS_MAX_BYTES) } } });
const SIGNINGS = Number(args.signings);
/** The files are made just under this size (the bound a signed copy is offered up to). */
const TARGET = Number(args.bytes);
const MB = 1024 * 1024;

/** xorshift32: bytes deflate cannot shrink (a float LCG loses its low bits and repeats). */
function noise(seed: number): () => number {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 11) & 0xff;
  };
}

/** A JPEG of RGB noise (quality 100) whose size is just under `target`, topped up with COM segments. */
function noiseJpeg(target: number): Uint8Array {
  const encode = (width: number, height: number) => {
    const next = noise(2611);
    const data = Buffer.alloc(width * height * 4);
    for (let i = 0; i < data.length; i++) data[i] = (i & 3) === 3 ? 255 : next();
    return new Uint8Array(jpeg.encode({ data, width, height }, 100).data);
  };
  const width = 3000;
  const perRow = encode(width, 64).length / 64;
  let height = Math.floor((target * 0.995) / perRow);
  let bytes = encode(width, height);
  while (bytes.length > target) bytes = encode(width, (height -= 16));
  // COM segments after SOI (at most 65 535 bytes each) bring it to within 64 KB of the target.
  const fill: Uint8Array[] = [];
  let size = bytes.length;
  while (target - size > 65_537 + 4) {
    const segment = new Uint8Array(65_537);
    segment.set([0xff, 0xfe, 0xff, 0xff]);
    fill.push(segment);
    size += segment.length;
  }
  const out = new Uint8Array(size);
  out.set(bytes.subarray(0, 2));
  let at = 2;
  for (const segment of fill) {
    out.set(segment, at);
    at += segment.length;
  }
  out.set(bytes.subarray(2), at);
  return out;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG of RGB noise (8-bit, filter none) just under `target`, its IDAT in 8 KiB chunks as libpng writes them. */
function noisePng(target: number): Uint8Array {
  const width = 2900;
  const rowBytes = 1 + width * 3;
  // Noise does not compress: the file is the raw rows plus deflate's and the chunks' overhead.
  let height = Math.floor((target - 4096) / (rowBytes * 1.0005 + 12 / 8192 * rowBytes));
  for (;;) {
    const next = noise(2612);
    const raw = Buffer.alloc(rowBytes * height);
    for (let y = 0; y < height; y++) for (let x = 1; x < rowBytes; x++) raw[y * rowBytes + x] = next();
    const zdata = deflateSync(raw, { level: 1 });
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(width, 0);
    ihdr.writeUInt32BE(height, 4);
    ihdr.set([8, 2, 0, 0, 0], 8);
    const parts = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr)];
    for (let at = 0; at < zdata.length; at += 8192) parts.push(chunk("IDAT", zdata.subarray(at, at + 8192)));
    parts.push(chunk("IEND", new Uint8Array(0)));
    const png = Buffer.concat(parts);
    if (png.length <= target) return new Uint8Array(png);
    height -= 8;
  }
}

interface Phase {
  cpuPerSigning: number;
  wallMedian: number;
}

interface MemoryPhase {
  heapPeak: number;
  livePeak: number;
  liveSamples: number;
  samples: number;
  rssPeak: number;
}

async function main(): Promise<void> {
  const loadBefore = load();
  const files: Array<{ name: string; type: "image/jpeg" | "image/png"; bytes: Uint8Array }> = [
    { name: "noise.jpg", type: "image/jpeg", bytes: noiseJpeg(TARGET) },
    { name: "noise.png", type: "image/png", bytes: noisePng(TARGET) },
  ];
  const port = await freePort();
  const inspectorPort = await freePort();
  const w = await startWorkerd(port, { inspectorPort, config: "bench/credentials.wrangler.toml" });
  const base = `http://127.0.0.1:${port}`;
  const store = async (key: string, bytes: Uint8Array) => {
    const res = await fetch(`${base}/credentials/object?key=${key}`, { method: "PUT", body: bytes });
    if (!res.ok) throw new Error(`store ${key}: ${res.status} ${await res.text()}`);
    await res.text();
  };
  const sign = async (key: string, type: string, size: number): Promise<Uint8Array> => {
    const res = await fetch(`${base}/credentials/sign?key=${key}&type=${encodeURIComponent(type)}&size=${size}`, { method: "POST" });
    const body = new Uint8Array(await res.arrayBuffer());
    if (!res.ok) throw new Error(`sign ${key}: ${res.status} ${new TextDecoder().decode(body.subarray(0, 300))}`);
    return body;
  };
  const results: Array<{ name: string; size: number; signedSize: number; valid: boolean; time: Phase; memory: MemoryPhase; before: number; after: number }> = [];
  let inspector: Inspector | null = null;
  try {
    // Warm: each format's code path compiled and the signer imported, on the committed samples.
    for (const [name, type] of [["dune.jpg", "image/jpeg"], ["dune.png", "image/png"]] as const) {
      const bytes = new Uint8Array(readFileSync(join(ROOT, "test/fixtures/photos", name)));
      await store(`warm-${name}`, bytes);
      await sign(`warm-${name}`, type, bytes.length);
    }
    inspector = await connectInspector(inspectorPort);
    for (const file of files) {
      await store(file.name, file.bytes);
      const signed = await sign(file.name, file.type, file.bytes.length);
      const summary = await readC2pa(signed, []);
      const before = await inspector.heapAfterGc();

      const cpu0 = cpuMs(w.pids);
      const walls: number[] = [];
      for (let i = 0; i < SIGNINGS; i++) {
        const t0 = performance.now();
        await sign(file.name, file.type, file.bytes.length);
        walls.push(performance.now() - t0);
      }
      const time: Phase = { cpuPerSigning: (cpuMs(w.pids) - cpu0) / SIGNINGS, wallMedian: median(walls) };

      resetPeak(w.pids);
      let sampling = true;
      const memory: MemoryPhase = { heapPeak: 0, livePeak: 0, liveSamples: 0, samples: 0, rssPeak: 0 };
      const probe = inspector;
      const sampler = (async () => {
        for (let i = 0; sampling; i++) {
          const live = i % 4 === 3;
          const now = live ? await probe.heapAfterGc() : await probe.heapNow();
          const size = now.usedSize + now.backingStorageSize;
          memory.heapPeak = Math.max(memory.heapPeak, size);
          memory.samples += 1;
          if (live) {
            memory.livePeak = Math.max(memory.livePeak, size);
            memory.liveSamples += 1;
          }
          await new Promise((r) => setTimeout(r, 2));
        }
      })();
      for (let i = 0; i < SIGNINGS; i++) await sign(file.name, file.type, file.bytes.length);
      sampling = false;
      await sampler;
      memory.rssPeak = status(w.pids, "VmHWM");
      const after = await inspector.heapAfterGc();
      results.push({ name: file.name, size: file.bytes.length, signedSize: signed.length, valid: summary?.valid ?? false, time, memory, before: before.usedSize + before.backingStorageSize, after: after.usedSize + after.backingStorageSize });
    }
  } finally {
    inspector?.close();
    await stopWorkerd(w);
  }

  const mb = (n: number) => (n / MB).toFixed(1);
  console.log(`\n${new Date().toISOString()}  ${machine()}  load ${loadBefore} → ${load()}`);
  console.log(`Content Credentials signing (serve.ts signAndStore) in one workerd isolate, ${SIGNINGS} signings per phase (MB = 2^20 bytes):`);
  console.log("| file | bytes | signed copy | manifest valid | workerd CPU per signing | wall (median) | isolate heap after GC, before | heap peak, garbage included (samples) | live heap peak (samples) | live peak − before | workerd resident peak |");
  console.log("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.size} | ${r.signedSize} | ${r.valid ? "yes" : "NO"} | ${r.time.cpuPerSigning.toFixed(0)} ms | ${r.time.wallMedian.toFixed(0)} ms | ${mb(r.before)} MB | ${mb(r.memory.heapPeak)} MB (${r.memory.samples}) | ${mb(r.memory.livePeak)} MB (${r.memory.liveSamples}) | ${mb(r.memory.livePeak - r.before)} MB (${((r.memory.livePeak - r.before) / r.size).toFixed(2)}× the image) | ${mb(r.memory.rssPeak)} MB |`,
    );
  }
  console.log(`JSON ${JSON.stringify({ date: new Date().toISOString(), machine: machine(), load: [loadBefore, load()], signings: SIGNINGS, results })}`);
}

await main();
