/**
 * Where the API Worker's CPU goes on one request type (`npm run bench:profile -- capture|create|upload|upload-url`,
 * `upload` being the upload URL's PUT of a Worker-proxied upload, as `npm start` serves it, and
 * `upload-url` the request that mints one):
 * a V8 CPU profile of the Worker's isolate in process A (the Worker and its Durable Objects) over
 * a few seconds of load, summed by function (self time) and by module (node_modules package or
 * source file). No floor, no analysis: this is for finding work to remove, not for ratios.
 *
 *   npm run bench:profile -- capture [--clients 8] [--ms 4000] [--top 40] [--callers get]
 *
 * `--perf`: instead, Linux `perf record` of process A (API Worker, Durable Objects, queue consumers)
 * and process S (local D1, R2, queues, rate limiters) with the analysis running, as in
 * `bench:capture`: the CPU per request of each process and where it goes, native code included
 * (bench/lib/perf.ts). Needs `perf` and perf_event_paranoid ≤ 2 for the caller's own processes.
 */
import { parseArgs } from "node:util";
import { captureJobs, DIRECT_MODE } from "./lib/capture-jobs";
import { createJobs } from "./lib/create-jobs";
import { closedLoop, cpuMs, fmt, summarize } from "./lib/measure";
import { perfAvailable, recordPerf } from "./lib/perf";
import { API_WORKER, freePort, startRuntime } from "./lib/runtime";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    clients: { type: "string", default: "8" },
    ms: { type: "string", default: "4000" },
    top: { type: "string", default: "40" },
    /** a function name: where its self time was called from (three frames up) */
    callers: { type: "string" },
    perf: { type: "boolean", default: false },
  },
});
const scenario = positionals[0] ?? "capture";
const inspectorPort = await freePort();
const rt = await startRuntime({ floors: [], analysis: args.perf, apiVars: scenario === "upload" || scenario === "upload-url" ? {} : DIRECT_MODE, ...(args.perf ? {} : { inspectorPort }) });
const jobsFor = async (clients: number, perSecond: number): Promise<Jobs> => {
  const perClient = Math.ceil(((Number(args.ms) / 1000) * perSecond) / clients) + 4;
  if (scenario === "create") return createJobs(rt);
  if (scenario === "upload-url") return (await captureJobs(rt, "proxied")).prepareMints(clients, perClient);
  const captures = await captureJobs(rt, scenario === "upload" ? "proxied" : "direct");
  return scenario === "upload" ? captures.prepareUploads(clients, perClient) : captures.prepare("project", clients, perClient);
};

interface CdpNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

async function cdp(url: string) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve);
    ws.addEventListener("error", reject);
  });
  let id = 0;
  const pending = new Map<number, (v: unknown) => void>();
  ws.addEventListener("message", (e: MessageEvent) => {
    const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: unknown };
    if (msg.id && pending.has(msg.id)) pending.get(msg.id)!(msg.result ?? msg.error);
  });
  return {
    send: (method: string, params: unknown = {}) =>
      new Promise<unknown>((resolve) => {
        id += 1;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

function moduleOf(url: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const src = /(src\/.*|bench\/.*)$/.exec(url);
  return src ? src[1]! : url || "(native)";
}

type Jobs = Parameters<typeof closedLoop>[2];

/** Linux `perf` of processes A and S over the load: CPU per request and where it goes, native code included. */
async function profileProcesses(clients: number, prepared: Jobs): Promise<void> {
  if (!perfAvailable()) throw new Error("perf is not installed");
  // A warm-up first (JIT, storage), then the recording.
  await closedLoop(clients, 2000, prepared);
  const next = scenario === "create" ? prepared : await jobsFor(clients, 100);
  const processes = [["A (API Worker, Durable Objects, queue consumers)", rt.pids.api], ["S (D1, R2, queues, rate limiters)", rt.pids.storage]] as const;
  const recordings = processes.map(([, pid], i) => recordPerf(String(i), pid));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = processes.map(([, pid]) => cpuMs(pid));
  const result = await closedLoop(clients, Number(args.ms), next);
  const used = processes.map(([, pid], i) => cpuMs(pid) - before[i]!);
  await Promise.all(recordings.map((r) => r.stop()));
  const s = summarize([result]);
  console.log(`${scenario}: ${s.n} requests at ${args.clients} clients, p50 ${fmt(s.p50)} ms, ${s.rps.toFixed(1)} rps; analysis ${rt.pids.analysis ? "running" : "off"}`);
  for (const [i, [label]] of processes.entries()) {
    console.log(`\n${label}: ${fmt(used[i]! / Math.max(1, s.n))} ms of CPU per request\n${recordings[i]!.report(Number(args.top))}`);
  }
}

/** The V8 profile of the API isolate over the load: JavaScript self time by module and function. */
async function profileIsolate(clients: number, prepared: Jobs): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as { id: string; title: string; webSocketDebuggerUrl: string }[];
  const target = targets.find((t) => t.id.includes(API_WORKER)) ?? targets.find((t) => t.title.includes(API_WORKER));
  if (!target) throw new Error(`no inspector target for ${API_WORKER}: ${targets.map((t) => t.id).join(", ")}`);
  const session = await cdp(target.webSocketDebuggerUrl);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: 200 });
  await session.send("Profiler.start");
  const result = await closedLoop(clients, Number(args.ms), prepared);
  const { profile } = (await session.send("Profiler.stop")) as { profile: { nodes: CdpNode[]; samples: number[]; timeDeltas: number[] } };
  session.close();

  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((nodeId, i) => self.set(nodeId, (self.get(nodeId) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let total = 0;
  for (const [nodeId, ms] of self) {
    const { callFrame } = byNode.get(nodeId)!;
    if (callFrame.functionName === "(idle)" || callFrame.functionName === "(program)") continue;
    total += ms;
    const fn = `${callFrame.functionName || "(anonymous)"} ${moduleOf(callFrame.url)}:${callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
    const mod = moduleOf(callFrame.url);
    byModule.set(mod, (byModule.get(mod) ?? 0) + ms);
  }
  const s = summarize([result]);
  console.log(`${scenario}: ${s.n} requests at ${args.clients} clients, p50 ${fmt(s.p50)} ms, ${s.rps.toFixed(1)} rps; JS CPU in the isolate ${fmt(total / Math.max(1, s.n))} ms per request (sampled)`);
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(5)}%  ${fmt(v / Math.max(1, s.n)).padStart(6)} ms/req  ${k}`);
  console.log("\nby module (self time)\n" + top(byModule, 25).join("\n"));
  console.log("\nby function (self time)\n" + top(byFunction, Number(args.top)).join("\n"));
  // Native functions (`get`, `put`, `fetch`) say little alone: whose calls were they?
  if (args.callers) {
    const parent = new Map<number, CdpNode>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
    const byCaller = new Map<string, number>();
    for (const [nodeId, ms] of self) {
      const { callFrame } = byNode.get(nodeId)!;
      if (callFrame.functionName !== args.callers) continue;
      const chain: string[] = [];
      for (let p = parent.get(nodeId); p && chain.length < 3; p = parent.get(p.id)) chain.push(`${p.callFrame.functionName || "(anonymous)"}:${p.callFrame.lineNumber + 1}`);
      const key = chain.join(" < ");
      byCaller.set(key, (byCaller.get(key) ?? 0) + ms);
    }
    console.log(`\ncallers of ${args.callers} (self time)\n` + top(byCaller, 15).join("\n"));
  }
}

try {
  const clients = Number(args.clients);
  const prepared = await jobsFor(clients, 60);
  await (args.perf ? profileProcesses(clients, prepared) : profileIsolate(clients, prepared));
} finally {
  await rt.dispose();
}
