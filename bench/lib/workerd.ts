/**
 * One `wrangler dev` of bench/worker.ts (the decode, analysis and fuzz benchmarks' Worker) and the
 * workerd processes under it, read from /proc (Linux): resident set, its peak since a reset, CPU.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");

export interface Workerd {
  proc: ChildProcess;
  pids: number[];
  port: number;
}

function children(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

/** Every workerd process under wrangler dev (it runs more than one: the proxy and the Worker). */
function findWorkerd(root: number): number[] {
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    try {
      if (pid !== root && readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd") found.push(pid);
    } catch {
      // gone
    }
    queue.push(...children(pid));
  }
  return found;
}

/**
 * A fresh workerd running bench/worker.ts, answering once it decodes (a 1-byte body is refused at
 * once). With `inspectorPort`, its V8 inspector (DevTools protocol) listens there (./inspector.ts);
 * `config` is another wrangler configuration of the same Worker (bench/credentials.wrangler.toml).
 */
export async function startWorkerd(port: number, options: { inspectorPort?: number; config?: string } = {}): Promise<Workerd> {
  const inspector = options.inspectorPort !== undefined ? ["--inspector-port", String(options.inspectorPort)] : [];
  const proc = spawn(join(ROOT, "node_modules/.bin/wrangler"), ["dev", "-c", options.config ?? "bench/wrangler.toml", "--port", String(port), "--ip", "127.0.0.1", ...inspector, "--log-level", "error"], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/decode?type=image/gif`, { method: "POST", body: new Uint8Array(1) });
      await res.text();
      const pids = findWorkerd(proc.pid!);
      if (pids.length > 0) return { proc, pids, port };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("wrangler dev did not start");
}

export async function stopWorkerd(w: Workerd): Promise<void> {
  process.kill(-w.proc.pid!, "SIGTERM");
  await new Promise((r) => setTimeout(r, 500));
}

/** A /proc/PID/status field (kB) summed over the processes, in bytes. */
export function status(pids: number[], field: "VmRSS" | "VmHWM"): number {
  return pids.reduce((sum, pid) => {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith(`${field}:`))!;
    return sum + Number(line.split(/\s+/)[1]) * 1024;
  }, 0);
}

/** Resets the processes' peak resident set (VmHWM) to their current one. */
export function resetPeak(pids: number[]): void {
  for (const pid of pids) writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** utime + stime of the processes, in ms (clock ticks of 10 ms). */
export function cpuMs(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return sum + ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }, 0);
}
