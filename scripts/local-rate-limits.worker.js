// `npm start`'s Rate Limiting bindings ([[ratelimits]] in wrangler.toml), counted in this process's
// memory: one call, no storage. Cloudflare's binding counts on the machine the Worker runs on and
// synchronises in the background, so a `limit()` costs no round trip in production; Miniflare's own
// simulation writes each call to a SQLite-backed Durable Object on disk, about 2 ms of CPU per call
// here (three calls per end-to-end capture: bench/PERF-RESULTS.md, "The local Rate Limiting binding"). Same
// answer as both: a fixed window of `period` seconds per key, `success` while the count is within
// `limit`. The test suite keeps Miniflare's simulation (vitest's pool reads wrangler.toml).
/* global Response */
import { WorkerEntrypoint } from "cloudflare:workers";

/** `${namespace} ${key}` → the current window's start and count. */
const windows = new Map();
/** Past this many keys, windows that ended are dropped (a flood of distinct keys stays bounded). */
const PRUNE_AT = 10_000;

export class RateLimit extends WorkerEntrypoint {
  /** The binding's method: `limit({ key })` → `{ success }`. */
  async limit(options = {}) {
    const { namespace, limit, period } = this.ctx.props;
    const key = typeof options.key === "string" ? options.key : "";
    const now = Date.now();
    const start = now - (now % (period * 1000));
    const id = `${namespace} ${key}`;
    let window = windows.get(id);
    if (!window || window.start !== start) {
      if (windows.size >= PRUNE_AT) for (const [k, w] of windows) if (w.start !== start) windows.delete(k);
      window = { start, count: 0 };
      windows.set(id, window);
    }
    window.count += 1;
    return { success: window.count <= limit };
  }
}

export default {
  fetch() {
    return new Response(null, { status: 404 });
  },
};
