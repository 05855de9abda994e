import { describe, expect, it } from "vitest";
import { digestStream, HEAD_BYTES, READ_CHUNK_BYTES, sha256Hex } from "../../src/lib/crypto";

/** A stream delivering `bytes` in chunks of `chunk` bytes (JS-backed, like many request bodies). */
function chunked(bytes: Uint8Array, chunk: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunk));
      offset += chunk;
    },
  });
}

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  return out;
}

describe("stream digests (the bytes are hashed once, as they stream)", () => {
  for (const [size, chunk] of [
    [0, 16],
    [10, 3],
    [HEAD_BYTES, 100],
    [HEAD_BYTES + 1, 100],
    [1_500_000, 4096],
    [1_500_000, 1_500_000],
  ] as const) {
    it(`${size} bytes in chunks of ${chunk}: digest, size and first bytes`, async () => {
      const bytes = randomBytes(size);
      const expected = await sha256Hex(bytes);
      for (const stream of [chunked(bytes, chunk), new Response(bytes).body ?? chunked(bytes, chunk)]) {
        const got = await digestStream(stream);
        expect(got.sha256).toBe(expected);
        expect(got.size).toBe(size);
        expect([...got.head]).toEqual([...bytes.subarray(0, HEAD_BYTES)]);
      }
    });
  }

  it("a forward is handed every byte once, in order, intact after hashing; a runtime body in chunks of READ_CHUNK_BYTES", async () => {
    const bytes = randomBytes(3 * READ_CHUNK_BYTES + 123);
    for (const [stream, sizes] of [
      [new Response(bytes).body!, [READ_CHUNK_BYTES, READ_CHUNK_BYTES, READ_CHUNK_BYTES, 123]],
      [chunked(bytes, 5000), [...Array(Math.floor(bytes.length / 5000)).fill(5000), bytes.length % 5000]],
    ] as const) {
      const forwarded: Uint8Array[] = [];
      const got = await digestStream(stream, async (chunk) => {
        forwarded.push(chunk.slice());
      });
      expect(forwarded.map((c) => c.byteLength)).toEqual(sizes);
      const joined = new Uint8Array(bytes.length);
      let at = 0;
      for (const chunk of forwarded) {
        joined.set(chunk, at);
        at += chunk.byteLength;
      }
      expect(await sha256Hex(joined)).toBe(got.sha256);
      expect(got.sha256).toBe(await sha256Hex(bytes));
    }
  });

  it("a forward that fails cancels the stream and rejects the digest", async () => {
    let cancelled: unknown = null;
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new Uint8Array(1000));
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const refusal = new Error("the sink refused");
    await expect(
      digestStream(endless, async () => {
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(cancelled).toBe(refusal);
    expect(pulls).toBeLessThan(5);
  });

  it("a stream that fails past its first bytes rejects the digest, and nothing is left unhandled", async () => {
    let pulls = 0;
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        if (pulls > 3) controller.error(new Error("the body broke"));
        else controller.enqueue(new Uint8Array(HEAD_BYTES));
      },
    });
    await expect(digestStream(failing)).rejects.toThrow("the body broke");
  });
});
