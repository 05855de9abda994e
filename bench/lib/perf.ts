/**
 * Where a process's CPU goes, native code included (`npm run bench:profile -- capture --perf`):
 * Linux `perf record` of a workerd process over a load, summed by symbol. The V8 profile of the API
 * isolate (bench/profile.ts) sees JavaScript only — the events consumer and the Durable Objects
 * included, which run in the same isolate — but most of process A's CPU per capture is workerd's own
 * (streams, subrequests to the storage process, the objects' SQLite, GC), and process S is all native.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface PerfRecording {
  stop(): Promise<void>;
  /** the top symbols by self time, and by time including callees for the named native areas */
  report(top: number): string;
}

/**
 * Native areas worth a line of their own (time including callees, share of the process's samples).
 * Not the entry points (a request, an RPC call, a queue batch): their continuations run from the
 * event loop's microtasks, which perf cannot tie back to them.
 */
const AREAS: Array<[string, RegExp]> = [
  ["SHA-256 (DigestStream)", /workerd::api::DigestStream::write$/],
  ["V8 garbage collection", /^v8::internal::Heap::CollectGarbage$/],
  ["cppgc (C++ wrappers) allocation and sweeping", /^cppgc::internal::(ObjectAllocator::OutOfLineAllocateGCSafePoint|Sweeper::SweeperImpl::FinishIfRunning)$/],
  ["SQLite (Durable Object storage; in S: D1)", /^sqlite3_step$/],
  ["fsync", /^(__x64_sys_fsync|__x64_sys_fdatasync)$/],
  ["subrequests (fetch)", /^workerd::api::fetchImpl$/],
  ["kernel network send (__ip_queue_xmit)", /^__ip_queue_xmit$/],
];

export function perfAvailable(): boolean {
  return spawnSync("perf", ["--version"]).status === 0;
}

export function recordPerf(name: string, pid: number): PerfRecording {
  const file = path.join(tmpdir(), `vfy-perf-${name}-${process.pid}.data`);
  const child: ChildProcess = spawn("perf", ["record", "-F", "2000", "-g", "-p", String(pid), "-o", file], { stdio: "ignore" });
  return {
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGINT");
      await exited;
    },
    report(top) {
      const run = (args: string[]) => spawnSync("perf", ["report", "-i", file, "--stdio", "-g", "none", ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 }).stdout;
      const rows = (text: string) =>
        text
          .split("\n")
          .filter((l) => l.trim() && !l.startsWith("#"))
          .map((l) => /^\s*([\d.]+)%\s+(?:([\d.]+)%\s+)?\[[.k]\]\s+(.*)$/.exec(l))
          .filter((m): m is RegExpExecArray => m !== null);
      const self = rows(run(["--no-children", "--sort", "sym"])).slice(0, top);
      const children = rows(run(["--children", "--sort", "sym"]));
      const areas = AREAS.map(([label, re]) => {
        const hit = children.find((m) => re.test(m[3]!.trim()));
        return `${(hit ? hit[1]! : "0.00").padStart(6)}%  ${label}`;
      });
      rmSync(file, { force: true });
      return [
        `areas (time including callees; they overlap)`,
        ...areas,
        `top symbols (self time)`,
        ...self.map((m) => `${m[1]!.padStart(6)}%  ${m[3]!.trim().slice(0, 140)}`),
      ].join("\n");
    },
  };
}
