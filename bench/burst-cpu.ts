/**
 * What a live capture's burst costs inside workerd (issue 41; the frame chain was measured in Node
 * only, bench/frame-chain.ts). Against `npm start`: N verifications each sent one synthetic live
 * capture (test/helpers/synthetic-burst.ts: a camera over a near 3-D scene, 16 frames of 160 × 120
 * and 6 native patches of 64 × 64, the photo 480 × 360) with its burst and nonce, then N sent the same
 * photos with no burst. Each process's CPU (/proc/<pid>/stat, clock ticks) from the first request
 * until every verdict is in, per capture. The difference is the burst's: its validation and storage
 * on process A, reading both strips back, the measures and the photo and patch agreements on the
 * analysis process. Every photo is its own (a seed each), so the reverse search finds nothing.
 *
 *   BASE_URL=http://localhost:8787 API_KEY=… PIDS=<A>,<analysis> npx tsx bench/burst-cpu.ts   # N=40, C=4
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { syntheticCapture, type SyntheticCapture } from "../test/helpers/synthetic-burst";

const BASE = process.env.BASE_URL ?? "http://localhost:8787";
const KEY = process.env.API_KEY;
const N = Number(process.env.N ?? 40);
const C = Number(process.env.C ?? 4);
const PIDS = (process.env.PIDS ?? "").split(",").filter(Boolean).map(Number);
if (!KEY || PIDS.length === 0) throw new Error("API_KEY and PIDS (process A, then the analysis process) are required");

const cpuMs = () =>
  PIDS.map((pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  });
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

async function call(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${BASE}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function verdictOf(id: string): Promise<boolean> {
  const res = await fetch(`${BASE}/v1/verifications/${id}`, { headers: { authorization: `Bearer ${KEY}` } });
  return ((await res.json()) as { verdict: unknown }).verdict != null;
}

/** Sends every capture (C at a time) and waits for every verdict; each process's CPU per capture. */
async function phase(name: string, captures: SyntheticCapture[], withBurst: boolean) {
  const ids: string[] = [];
  for (let i = 0; i < captures.length; i += 1) ids.push((await call("/v1/verifications", { max_captures: 1 }, { authorization: `Bearer ${KEY}` })).id as string);
  const before = cpuMs();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < captures.length) {
        const i = next++;
        const [id, capture] = [ids[i]!, captures[i]!];
        // A client address each: the capture doors' rate limits are per address.
        const ip = { "cf-connecting-ip": `10.9.${withBurst ? 1 : 2}.${i + 1}` };
        const integrity = withBurst ? { capture_integrity: { ...capture.integrity, nonce: (await call(`/v1/verifications/${id}/captures/burst-nonce`, {}, ip)).nonce } } : {};
        await call(`/v1/verifications/${id}/captures`, { image_base64: base64(capture.photo), ...integrity }, ip);
      }
    }),
  );
  const pending = new Set(ids);
  while (pending.size > 0) {
    for (const id of [...pending]) if (await verdictOf(id)) pending.delete(id);
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 200));
  }
  const after = cpuMs();
  const perCapture = after.map((ms, p) => (ms - before[p]!) / captures.length);
  console.log(`${name.padEnd(9)} ${captures.length} captures in ${((performance.now() - t0) / 1000).toFixed(1)} s; CPU per capture (A / analysis): ${perCapture.map((ms) => ms.toFixed(1)).join(" / ")} ms`);
  return perCapture;
}

const captures = await Promise.all(Array.from({ length: N }, (_, i) => syntheticCapture("scene3d", 7000 + i)));
console.log(`${N} synthetic live captures, ${C} at a time; burst strips ${Math.round(captures[0]!.integrity.frames.png_base64.length / 1024)} + ${Math.round(captures[0]!.integrity.patches.png_base64.length / 1024)} KiB of base64, photo ${Math.round(captures[0]!.photo.length / 1024)} KiB`);
const withBurst = await phase("burst", captures, true);
const without = await phase("no burst", captures, false);
console.log(`the burst's share per capture (A / analysis): ${withBurst.map((ms, p) => (ms - without[p]!).toFixed(1)).join(" / ")} ms`);
