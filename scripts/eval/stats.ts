/** One row of an evaluation table: how many of n cases the signal flagged. */
export interface Row {
  signal: string;
  case: string;
  /** true: the signal should flag these; false: it should not. */
  positive: boolean;
  n: number;
  flagged: number;
  /** Rows of one signal and class that add up to its summary line. */
  summary?: string;
}

/** Wilson score interval (95 %) for k successes out of n. */
export function wilson(k: number, n: number, z = 1.96): [number, number] {
  if (n === 0) return [0, 1];
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

export function rate(k: number, n: number): string {
  if (n === 0) return "–";
  const [lo, hi] = wilson(k, n);
  const pct = (x: number) => `${(100 * x).toFixed(x < 0.1 && x > 0 ? 1 : 0)}%`;
  return `${pct(k / n)} (${pct(lo)}–${pct(hi)})`;
}

/** The per-case table, then per signal the summary lines (detection and false-positive rates). */
export function tables(rows: Row[]): string {
  const lines = [
    "| signal | case | should flag | n | flagged | rate (95% CI) |",
    "|---|---|---|---:|---:|---:|",
    ...rows.map((r) => `| ${r.signal} | ${r.case} | ${r.positive ? "yes" : "no"} | ${r.n} | ${r.flagged} | ${rate(r.flagged, r.n)} |`),
    "",
    "| signal | group | detection rate (positives flagged) | false-positive rate (negatives flagged) |",
    "|---|---|---:|---:|",
  ];
  for (const signal of [...new Set(rows.map((r) => r.signal))]) {
    const groups = [...new Set(rows.filter((r) => r.signal === signal).map((r) => r.summary ?? "all"))];
    for (const group of groups) {
      const of = (positive: boolean) => rows.filter((r) => r.signal === signal && (r.summary ?? "all") === group && r.positive === positive);
      const total = (rs: Row[]) => {
        const n = rs.reduce((a, r) => a + r.n, 0);
        return n ? `${rate(rs.reduce((a, r) => a + r.flagged, 0), n)}, n=${n}` : "–";
      };
      lines.push(`| ${signal} | ${group} | ${total(of(true))} | ${total(of(false))} |`);
    }
  }
  return lines.join("\n");
}
