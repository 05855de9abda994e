import { describe, expect, it } from "vitest";
import { JUMBF_MAX_DEPTH, JumbfBoxError, walkJumbfBoxes } from "../../src/analysis/jumbf-boxes";

/* The JUMBF box walk both C2PA readers run before c2pa-ts: boxes within their superboxes, how deep, and what a read copies. */

/** A box of `type` around `payload`, with an 8-byte header, or a 16-byte one (LBox 1, XLBox) when `xl`. */
function box(type: string, payload: Uint8Array, xl = false): Uint8Array {
  const header = xl ? 16 : 8;
  const out = new Uint8Array(header + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, xl ? 1 : out.length);
  if (xl) view.setBigUint64(8, BigInt(out.length));
  out.set([...type].map((c) => c.charCodeAt(0)), 4);
  out.set(payload, header);
  return out;
}
const jumb = (...children: Uint8Array[]): Uint8Array => box("jumb", concat(...children));
const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((p) => [...p]));

/** `levels` superboxes nested in one another around `payload`. */
function nested(levels: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  let out: Uint8Array = payload;
  for (let i = 0; i < levels; i++) out = jumb(out);
  return out;
}

describe("walkJumbfBoxes", () => {
  it("counts each superbox's payload once per level of nesting, and the deepest level", () => {
    // jumb(jumd(4), jumb(json(10))): the outer payload (12 + 26 = 38 bytes) and the inner one (18).
    const store = jumb(box("jumd", new Uint8Array(4)), jumb(box("json", new Uint8Array(10))));
    expect(store.length).toBe(46);
    expect(walkJumbfBoxes(store)).toEqual({ copyCost: 38 + 18, deepest: 2 });
    expect(walkJumbfBoxes(new Uint8Array(0))).toEqual({ copyCost: 0, deepest: 0 });
    expect(walkJumbfBoxes(box("json", new Uint8Array(3)))).toEqual({ copyCost: 0, deepest: 0 });
  });

  it("reads the contents of superboxes down to JUMBF_MAX_DEPTH levels and reports one level more for anything deeper, without reading it", () => {
    const atLimit = nested(JUMBF_MAX_DEPTH, box("json", new Uint8Array(1)));
    // Level k's payload (k = 1 outermost) is the 9-byte json box and JUMBF_MAX_DEPTH - k superbox headers.
    const cost = Array.from({ length: JUMBF_MAX_DEPTH }, (_, i) => 8 * (JUMBF_MAX_DEPTH - 1 - i) + 9).reduce((a, b) => a + b, 0);
    expect(walkJumbfBoxes(atLimit)).toEqual({ copyCost: cost, deepest: JUMBF_MAX_DEPTH });
    expect(walkJumbfBoxes(nested(JUMBF_MAX_DEPTH + 5)).deepest).toBe(JUMBF_MAX_DEPTH + 1);
    // A box that overruns its superbox below the limit is not looked at.
    const lying = box("json", new Uint8Array(4));
    new DataView(lying.buffer).setUint32(0, 4_000_000_000);
    expect(walkJumbfBoxes(nested(JUMBF_MAX_DEPTH + 1, lying)).deepest).toBe(JUMBF_MAX_DEPTH + 1);
    expect(() => walkJumbfBoxes(nested(JUMBF_MAX_DEPTH, lying))).toThrow(JumbfBoxError);
  });

  it("reads an XLBox length (LBox 1) and a length of 0 as running to the superbox's end", () => {
    // xl jumb(xl jumb(json(5)), json(2)): payloads of 29 + 10 and 13 bytes.
    const store = box("jumb", concat(box("jumb", box("json", new Uint8Array(5)), true), box("json", new Uint8Array(2))), true);
    expect(walkJumbfBoxes(store)).toEqual({ copyCost: 29 + 10 + 13, deepest: 2 });
    const toTheEnd = jumb(box("jumd", new Uint8Array(2)));
    new DataView(toTheEnd.buffer).setUint32(0, 0);
    new DataView(toTheEnd.buffer).setUint32(8, 0);
    expect(walkJumbfBoxes(toTheEnd)).toEqual({ copyCost: 10, deepest: 1 });
  });

  it("refuses a box that states more bytes than its superbox holds, or fewer than its header", () => {
    const store = jumb(box("jumd", new Uint8Array(4)), jumb(box("json", new Uint8Array(10))));
    const over = store.slice();
    new DataView(over.buffer).setUint32(20, 3_103_785_410);
    expect(() => walkJumbfBoxes(over)).toThrow(new JumbfBoxError("JUMBF box at 20 states 3103785410 bytes, beyond its superbox"));
    const under = store.slice();
    new DataView(under.buffer).setUint32(8, 7);
    expect(() => walkJumbfBoxes(under)).toThrow(new JumbfBoxError("JUMBF box at 8 states 7 bytes, beyond its superbox"));
    const xlOver = box("jumb", new Uint8Array(4), true);
    new DataView(xlOver.buffer).setBigUint64(8, 2n ** 40n);
    expect(() => walkJumbfBoxes(xlOver)).toThrow(new JumbfBoxError(`JUMBF box at 0 states ${2 ** 40} bytes, beyond its superbox`));
  });

  it("refuses a box whose header is cut short", () => {
    expect(() => walkJumbfBoxes(concat(jumb(), new Uint8Array(7)))).toThrow(new JumbfBoxError("JUMBF box at 8 is cut short"));
    const xl = box("jumb", new Uint8Array(0), true).subarray(0, 12);
    expect(() => walkJumbfBoxes(xl)).toThrow(new JumbfBoxError("JUMBF box at 0 is cut short"));
  });

  it("throws an error named Error, as the readers quote it (manifest.malformed: Error: ...)", () => {
    let thrown: unknown;
    try {
      walkJumbfBoxes(new Uint8Array(3));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(JumbfBoxError);
    expect(String(thrown)).toBe("Error: JUMBF box at 0 is cut short");
  });
});
