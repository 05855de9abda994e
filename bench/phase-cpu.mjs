// CPU per operation of each process, counted from /proc/<pid>/stat (issue 42 item 7): N upload-urls,
// then N PUTs, then N key-reference captures against `npm start` (TARGET=service), or N PUTs then N
// captures against ../shared/perf's floor (TARGET=floor, FLOOR_URL default :8790). PIDS: the
// processes to count, comma-separated (npm start: process A serving :8787, then the analysis
// process; the floor: its two workerd processes). SMALL=1 sends a 64×64 JPEG instead of the
// 1.49 MB noise one, to see each call's fixed cost. Analysis CPU: read the analysis process's
// /proc counter again once its queue drained, or STOP_ANALYSIS=1: the analysis process stopped
// (SIGSTOP) during the PUTs and captures, then let go and counted until it is idle ("drain": what
// each capture's analysis costs both processes). DISTINCT=1: every capture a picture of its own.
//
//   BASE_URL=http://localhost:8787 API_KEY=… PIDS=<a>,<b> node bench/phase-cpu.mjs
//   TARGET=floor PIDS=<p>,<q> node bench/phase-cpu.mjs
import jpeg from "jpeg-js";
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createHash, randomBytes } from "node:crypto";

const TARGET = process.env.TARGET ?? "service";
const BASE = process.env.BASE_URL ?? "http://localhost:8787";
const FLOOR = process.env.FLOOR_URL ?? "http://localhost:8790";
const KEY = process.env.API_KEY;
const N = Number(process.env.N ?? 100);
const C = Number(process.env.C ?? 8);
const PIDS = (process.env.PIDS ?? "").split(",").filter(Boolean).map(Number);
const cpuMs = () => PIDS.map((p) => { const f = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" "); return (Number(f[11]) + Number(f[12])) * 10; });

const [w, h] = process.env.SMALL ? [64, 64] : [1200, 900];
/** A JPEG of fresh noise (its own picture each call) and its SHA-256. */
function noisePicture() {
  const pixels = Buffer.alloc(w * h * 4);
  const noise = randomBytes(w * h);
  for (let i = 0; i < w * h; i++) { const v = noise[i]; pixels[i * 4] = v; pixels[i * 4 + 1] = (v * 3) & 255; pixels[i * 4 + 2] = (v * 7) & 255; pixels[i * 4 + 3] = 255; }
  const img = Buffer.from(jpeg.encode({ data: pixels, width: w, height: h }, 80).data);
  return { img, digest: createHash("sha256").update(img).digest("hex") };
}
const { img, digest } = noisePicture();
// DISTINCT=1: every capture a picture of its own, as end users' photos are; else one picture for all.
const pictureFor = () => (process.env.DISTINCT ? noisePicture() : { img, digest });
console.log(`${TARGET}: ${N} of each, ${C} clients, image ${img.length} bytes`);

async function pool(items, fn) {
  let i = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: C }, async () => { while (i < items.length) await fn(items[i++]); }));
  return performance.now() - t0;
}
async function phase(name, items, fn) {
  const before = cpuMs();
  const wall = await pool(items, fn);
  const after = cpuMs();
  console.log(`${name.padEnd(10)} wall/op ${(wall / N).toFixed(1)} ms  cpu/op ${after.map((x, i) => ((x - before[i]) / N).toFixed(1)).join(" / ")} ms`);
}
const ok = async (res, status) => { await res.arrayBuffer(); if (res.status !== status) throw new Error(`${res.url}: ${res.status}`); };

const items = [];
if (TARGET === "floor") {
  for (let v = 0; v < N / 20; v++) {
    const id = "fv_" + randomBytes(6).toString("hex");
    await fetch(`${FLOOR}/floor/verifications`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id, max: 20 }) });
    for (let k = 0; k < 20; k++) items.push({ id, key: `${id}/${k}` });
  }
  await phase("PUT", items, async (it) => ok(await fetch(`${FLOOR}/floor/objects/${encodeURIComponent(it.key)}`, { method: "PUT", headers: { "content-type": "image/jpeg" }, body: img }), 204));
  await phase("capture", items, async (it) => ok(await fetch(`${FLOOR}/floor/verifications/${it.id}/captures`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ image_key: it.key, image_sha256: digest }) }), 201));
} else {
  for (let v = 0; v < N / 20; v++) {
    const res = await fetch(`${BASE}/v1/verifications`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` }, body: JSON.stringify({ max_captures: 20 }) });
    const { id } = await res.json();
    for (let k = 0; k < 20; k++) items.push({ id, ip: `10.7.${v}.${k + 1}`, ...pictureFor() });
  }
  const write = (it, path, body) => fetch(`${BASE}/v1/verifications/${it.id}/${path}`, { method: "POST", headers: { "content-type": "application/json", "cf-connecting-ip": it.ip }, body: JSON.stringify(body) });
  await phase("upload-url", items, async (it) => { it.upload = await (await write(it, "captures/upload-url", { content_type: "image/jpeg" })).json(); });
  // STOP_ANALYSIS=1: the analysis process (PIDS' second) stopped while the requests run, then its drain counted on its own.
  if (process.env.STOP_ANALYSIS) process.kill(PIDS[1], "SIGSTOP");
  await phase("PUT", items, async (it) => ok(await fetch(it.upload.upload_url, { method: "PUT", headers: { "content-type": "image/jpeg" }, body: it.img }), 200));
  await phase("capture", items, async (it) => ok(await write(it, "captures", { image_key: it.upload.image_key, image_sha256: it.digest }), 201));
  if (process.env.STOP_ANALYSIS) {
    const before = cpuMs();
    const t0 = performance.now();
    process.kill(PIDS[1], "SIGCONT");
    let last = -1, flat = 0;
    while (flat < 3) { await new Promise((r) => setTimeout(r, 1000)); const now = cpuMs()[1]; flat = now === last ? flat + 1 : 0; last = now; }
    const after = cpuMs();
    console.log(`${"drain".padEnd(10)} wall/op ${((performance.now() - t0 - 3000) / N).toFixed(1)} ms  cpu/op ${after.map((x, i) => ((x - before[i]) / N).toFixed(1)).join(" / ")} ms`);
  }
}
