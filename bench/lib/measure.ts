/**
 * Measuring helpers shared by the benchmarks: a closed-loop load generator (N clients, each sending
 * its next request as soon as the previous one answered), percentiles, CPU time of a process, and
 * the machine line every result is recorded with.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";

export interface Job {
  url: string;
  init: RequestInit;
  /** the status the request must answer with (anything else is counted as an error) */
  expect: number;
}

export interface PhaseResult {
  latencies: number[];
  elapsedMs: number;
  errors: string[];
}

/**
 * Runs `clients` concurrent loops for at most `durationMs`, each taking its next request from
 * `jobs(client)` as soon as the previous one answered (a loop whose jobs run out stops).
 */
export async function closedLoop(clients: number, durationMs: number, jobs: (client: number) => Job | undefined): Promise<PhaseResult> {
  const latencies: number[] = [];
  const errors: string[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  const loop = async (client: number) => {
    while (performance.now() < deadline) {
      const job = jobs(client);
      if (!job) return;
      const t0 = performance.now();
      try {
        const res = await fetch(job.url, job.init);
        const text = await res.text();
        if (res.status !== job.expect) errors.push(`${res.status} ${text.slice(0, 200)}`);
        else latencies.push(performance.now() - t0);
      } catch (err) {
        errors.push(String(err));
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, client) => loop(client)));
  return { latencies, elapsedMs: performance.now() - started, errors };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  rps: number;
  errors: number;
}

/** Merges the phases of one side (floor or project) into one summary. */
export function summarize(phases: PhaseResult[]): Summary {
  const all = phases.flatMap((p) => p.latencies).sort((a, b) => a - b);
  const elapsed = phases.reduce((s, p) => s + p.elapsedMs, 0);
  return {
    n: all.length,
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    rps: (all.length / elapsed) * 1000,
    errors: phases.reduce((s, p) => s + p.errors.length, 0),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** CPU time (user + system) a process has used so far, in milliseconds. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** The load average right now (1, 5, 15 min), as `uptime` prints it. */
export function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
}

export function machine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model.trim() ?? "unknown CPU"}, ${cpu.length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}`;
}

export const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

/** A failure summary: the distinct error lines and how often each occurred. */
export function errorDigest(phases: PhaseResult[]): string[] {
  const counts = new Map<string, number>();
  for (const e of phases.flatMap((p) => p.errors)) counts.set(e, (counts.get(e) ?? 0) + 1);
  return [...counts].map(([e, n]) => `${n}× ${e}`);
}

/**
 * Runs the phases of two sides alternately (A B, B A, A B, …, so neither always goes first),
 * `rounds` times after one unrecorded warm-up phase each, and returns each side's recorded phases.
 */
export async function interleaved<S extends string>(
  sides: Record<S, (client: number) => Job | undefined>,
  options: { clients: number; rounds: number; phaseMs: number },
): Promise<Record<S, PhaseResult[]>> {
  const names = Object.keys(sides) as S[];
  const out = Object.fromEntries(names.map((n) => [n, [] as PhaseResult[]])) as Record<S, PhaseResult[]>;
  for (const name of names) await closedLoop(options.clients, options.phaseMs, sides[name]);
  for (let r = 0; r < options.rounds; r += 1) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const name of order) out[name].push(await closedLoop(options.clients, options.phaseMs, sides[name]));
  }
  return out;
}
