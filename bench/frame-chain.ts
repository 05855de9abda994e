/**
 * CPU of the capture burst's frame chain at the burst's bound, 16 frames of 160 × 120, in Node:
 * the 15 links (src/analysis/burst/frame-chain.ts), and the motion they are measured at
 * (src/analysis/burst/swing.ts `swingOf`, then measures.ts `pairShift` for each pair) for a camera
 * that barely moves and one sweeping 8 px a frame. `npx tsx bench/frame-chain.ts`
 */
import { frameLink } from "../src/analysis/burst/frame-chain";
import { pairShift } from "../src/analysis/burst/measures";
import { searchCentres, swingOf } from "../src/analysis/burst/swing";

const burst = (speed: number) =>
  Array.from({ length: 16 }, (_, k) => ({
    t: k * 33,
    width: 160,
    height: 120,
    luma: Uint8Array.from({ length: 160 * 120 }, (_, i) => {
      const [x, y] = [(i % 160) + speed * k, Math.floor(i / 160)];
      return (Math.sin(x * 0.3 + Math.cos(y * 0.05) * 2) * 60 + Math.cos(y * 0.2 + x * 0.02) * 50 + 128) | 0;
    }),
  }));

const time = (label: string, work: () => void) => {
  const runs: number[] = [];
  for (let run = 0; run < 7; run += 1) {
    const started = performance.now();
    work();
    runs.push(performance.now() - started);
  }
  runs.sort((a, b) => a - b);
  console.log(`${label}: median ${runs[3]!.toFixed(1)} ms (${runs.map((r) => r.toFixed(1)).join(", ")})`);
};

const still = burst(0.3);
time("15 links", () => {
  for (let i = 1; i < still.length; i += 1) frameLink(still[i - 1]!, still[i]!, { dx: 1, dy: 0 });
});
for (const [label, frames] of [["barely moving (0.3 px a frame)", still], ["sweeping (8 px a frame)", burst(8)]] as const) {
  time(`motion, ${label}: swingOf alone`, () => swingOf(frames));
  time(`motion, ${label}: swingOf + 15 pairShift`, () => {
    const sweep = swingOf(frames);
    for (let i = 1; i < frames.length; i += 1) pairShift(frames[i - 1]!, frames[i]!, searchCentres(sweep, i - 1));
  });
}
