/**
 * The V8 inspector of a `wrangler dev` Worker (the DevTools protocol, through wrangler's inspector
 * proxy): what one isolate holds, measured inside it rather than from the process's resident set.
 */

/** `Runtime.getHeapUsage`, in bytes. */
export interface HeapUsage {
  /** live JavaScript objects */
  usedSize: number;
  /** the V8 heap reserved for them */
  totalSize: number;
  /** objects of the runtime (workerd) tracked by V8 */
  embedderHeapUsedSize: number;
  /** ArrayBuffer backing stores: typed arrays and WebAssembly memories */
  backingStorageSize: number;
}

export interface Inspector {
  /** The heap after a full garbage collection (a heap snapshot forces one; its contents are discarded). */
  heapAfterGc(): Promise<HeapUsage>;
  /** The heap as it is now, garbage included (answered when the isolate next yields). */
  heapNow(): Promise<HeapUsage>;
  close(): void;
}

export async function connectInspector(port: number): Promise<Inspector> {
  // wrangler's proxy wants a local Origin (node's WebSocket sends none by itself).
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { Origin: "http://localhost" } } as unknown as string[]);
  const pending = new Map<number, (result: unknown) => void>();
  let next = 0;
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined && pending.has(message.id)) {
      pending.get(message.id)!(message.result);
      pending.delete(message.id);
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve());
    ws.addEventListener("error", () => reject(new Error(`the inspector on port ${port} refused the connection`)));
  });
  const send = <T>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve) => {
      next += 1;
      pending.set(next, resolve as (result: unknown) => void);
      ws.send(JSON.stringify({ id: next, method, params }));
    });
  return {
    async heapAfterGc() {
      // workerd answers no HeapProfiler.collectGarbage; a snapshot collects first (chunks ignored).
      await send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
      return send<HeapUsage>("Runtime.getHeapUsage");
    },
    heapNow: () => send<HeapUsage>("Runtime.getHeapUsage"),
    close: () => ws.close(),
  };
}
