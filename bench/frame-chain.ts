/**
 * CPU of the capture burst's frame chain (src/analysis/burst/frame-chain.ts) at the burst's bound:
 * 16 frames of 160 × 120, 15 links, in Node. `npx tsx bench/frame-chain.ts`
 */
import { frameLink } from "../src/analysis/burst/frame-chain";

const frames = Array.from({ length: 16 }, (_, k) => ({
  t: k * 33,
  width: 160,
  height: 120,
  luma: Uint8Array.from({ length: 160 * 120 }, (_, i) => (Math.sin((i % 160) * 0.3 + k) * 60 + Math.cos(Math.floor(i / 160) * 0.2) * 50 + 128) | 0),
}));
for (let run = 0; run < 5; run += 1) {
  const started = performance.now();
  for (let i = 1; i < frames.length; i += 1) frameLink(frames[i - 1]!, frames[i]!, { dx: 1, dy: 0 });
  console.log(`15 links: ${(performance.now() - started).toFixed(1)} ms`);
}
