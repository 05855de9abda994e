/*
 * The JUMBF box tree of a C2PA manifest store (ISO/IEC 19566-5: LBox, TBox, XLBox when LBox is 1),
 * checked before c2pa-ts reads it. c2pa-ts sizes each box's buffer by the length it states before
 * reading it (a manifest whose box claimed 3.1 GB took workerd 3 s and that memory to refuse:
 * test/helpers/fuzz.ts, c2pa target, run 2611, input 81), and SuperBox.fromBuffer copies each
 * superbox's payload, so a store costs its size once per level of nesting.
 */

/** Superbox levels whose contents are read; a superbox deeper than this is checked as a box, its contents not. */
export const JUMBF_MAX_DEPTH = 16;

/**
 * The most a manifest store's read may copy (SuperBox.fromBuffer's copies, all alive at once while
 * the tree is read): a 5 MB store nested three levels deep, far beyond what cameras and editors write.
 */
export const STORE_PARSE_BUDGET_BYTES = 16 * 1000 * 1000;

/** A box that is cut short or states a length beyond its superbox. Its name stays "Error": callers quote it as `String(err)`. */
export class JumbfBoxError extends Error {}

export interface JumbfWalk {
  /** The bytes SuperBox.fromBuffer copies reading the tree: each superbox's payload, nested ones again (superboxes within JUMBF_MAX_DEPTH). */
  copyCost: number;
  /** The deepest superbox level met (a top-level `jumb` is 1; 0 with none); at most JUMBF_MAX_DEPTH + 1, which means deeper boxes went unread. */
  deepest: number;
}

/** Checks that every box in `bytes` lies within its superbox (a length of 0 runs to the superbox's end); throws JumbfBoxError otherwise. */
export function walkJumbfBoxes(bytes: Uint8Array): JumbfWalk {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const walk: JumbfWalk = { copyCost: 0, deepest: 0 };
  const boxesIn = (start: number, end: number, level: number): void => {
    for (let at = start; at < end; ) {
      if (at + 8 > end) throw new JumbfBoxError(`JUMBF box at ${at} is cut short`);
      let length = view.getUint32(at);
      let header = 8;
      if (length === 1) {
        if (at + 16 > end) throw new JumbfBoxError(`JUMBF box at ${at} is cut short`);
        length = view.getUint32(at + 8) * 2 ** 32 + view.getUint32(at + 12);
        header = 16;
      } else if (length === 0) length = end - at;
      if (length < header || at + length > end) throw new JumbfBoxError(`JUMBF box at ${at} states ${length} bytes, beyond its superbox`);
      if (bytes[at + 4] === 0x6a && bytes[at + 5] === 0x75 && bytes[at + 6] === 0x6d && bytes[at + 7] === 0x62) {
        walk.deepest = Math.max(walk.deepest, level);
        if (level <= JUMBF_MAX_DEPTH) {
          walk.copyCost += length - header;
          boxesIn(at + header, at + length, level + 1);
        }
      }
      at += length;
    }
  };
  boxesIn(0, bytes.length, 1);
  return walk;
}

/**
 * What must hold before c2pa-ts reads a store: every box within its superbox, superboxes nested no
 * deeper than JUMBF_MAX_DEPTH, and a read that copies no more than STORE_PARSE_BUDGET_BYTES. Throws
 * JumbfBoxError naming the first that fails.
 */
export function checkJumbfBounds(bytes: Uint8Array): void {
  const walk = walkJumbfBoxes(bytes);
  if (walk.deepest > JUMBF_MAX_DEPTH) throw new JumbfBoxError(`JUMBF superboxes nest deeper than ${JUMBF_MAX_DEPTH} levels`);
  if (walk.copyCost > STORE_PARSE_BUDGET_BYTES) throw new JumbfBoxError(`reading the manifest store would copy more than ${STORE_PARSE_BUDGET_BYTES} bytes`);
}
