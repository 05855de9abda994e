/** Polls `probe` until it returns a value other than undefined (queues deliver asynchronously). */
export async function waitFor<T>(probe: () => Promise<T | undefined>, { timeoutMs = 20_000, intervalMs = 100, what = "condition" } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
