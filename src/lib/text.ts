/**
 * Control characters (C0, DEL, C1: U+0000–U+001F, U+007F–U+009F, CR, LF and tab among them) and the
 * Unicode line and paragraph separators (U+2028, U+2029): what would let a name or a key break a
 * line where it is printed (the report, the CLI, a log) and pass for text of the service's own.
 */
export const CONTROL_OR_LINE_BREAK = /[\p{Cc}\u2028\u2029]/u;

/** CONTROL_OR_LINE_BREAK less what prose may hold (tab, LF, CR): NUL, escape sequences, C1 and the Unicode separators. */
export const CONTROL_IN_PROSE = /(?![\t\n\r])[\p{Cc}\u2028\u2029]/u;

/**
 * The bidirectional controls (ALM, LRM, RLM, the embeddings and overrides U+202A–U+202E, the isolates
 * U+2066–U+2069): in a name that identifies something (a step key) they reorder what a reader sees,
 * so two different keys can print alike.
 */
export const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/**
 * Any character that shows: not a format, combining, space or separator character, not one Unicode
 * tells renderers to ignore (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0 among them), and not
 * the blank Braille pattern U+2800. A name needs one (probe of 2026-12-06: `\u3164`, `\u2800` and
 * `\u115f` passed for names).
 */
export const VISIBLE = /[^\p{Cf}\p{Mn}\p{Me}\p{Z}\s\p{Default_Ignorable_Code_Point}\u2800]/u;

/**
 * Characters Unicode tells renderers not to show (zero-width space and joiners, the Hangul fillers,
 * variation selectors, soft hyphen): in a key that identifies something, `ab` and `ab\u200b` would
 * print alike and be two keys.
 */
export const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;

/**
 * Blanks that pass for something else: the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) and the
 * blank Braille pattern (U+2800). In a name beside visible text, `prod` and `prod\u3164` would be two
 * names that look the same (probe of 2026-12-06).
 */
export const FILLER = /[\u115F\u1160\u3164\uFFA0\u2800]/u;

/** White space other than the plain space (U+0020): NBSP, ideographic and em spaces print as one. */
export const OTHER_SPACE = /(?! )\s/u;

/**
 * Half a surrogate pair on its own (JSON can carry one as `\ud800`): not a character, and stored it
 * becomes U+FFFD, so a name would read back as something other than what was sent.
 */
export const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * `text` with each run of CONTROL_OR_LINE_BREAK made one space, bidirectional controls and fillers
 * (FILLER: they print as nothing) dropped, trimmed, and at most `max` UTF-16 code units long, never
 * cut inside a surrogate pair: for names the service did not get from a form it validates (an
 * identity provider's). A name with nothing visible left is empty.
 */
export function oneLine(text: string, max = Infinity): string {
  const line = text
    .replace(/[\p{Cc}\u2028\u2029]+/gu, " ")
    .replace(new RegExp(BIDI_CONTROL.source, "gu"), "")
    .replace(new RegExp(FILLER.source, "gu"), "")
    .trim();
  const cut = line.length > max ? line.slice(0, /[\uD800-\uDBFF]/.test(line[max - 1] ?? "") ? max - 1 : max).trim() : line;
  return VISIBLE.test(cut) ? cut : "";
}

export const UNPAIRED_SURROGATE_MESSAGE = "Must be valid Unicode text: half a surrogate pair on its own (\\uD800–\\uDFFF) is not a character.";

/** A JSON text can carry half a surrogate pair only as an escape (`\ud800`): raw UTF-8 cannot encode one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * The dotted path of a string (a value, or the object holding a bad key) in `json` with
 * half a surrogate pair, or null. The text is scanned first, so a body without such an escape is
 * never walked; `parsed` is `json` already parsed, when the caller has it. The walk is iterative, as
 * a body may nest deeper than the call stack.
 */
export function unpairedSurrogatePath(json: string, parsed?: unknown): string | null {
  if (!SURROGATE_ESCAPE.test(json)) return null;
  let root: unknown = parsed;
  if (parsed === undefined) {
    try {
      root = JSON.parse(json);
    } catch {
      return null; // Malformed JSON is refused as such, not as a surrogate.
    }
  }
  // Each entry links to its parent, so the walk is linear however deep the body nests; the path is
  // spelled out only for the string found.
  interface Node { value: unknown; key: string; parent: Node | null }
  const pathOf = (node: Node | null): string => {
    const keys: string[] = [];
    for (let at = node; at?.parent; at = at.parent) keys.push(at.key);
    return keys.reverse().join(".") || "body";
  };
  const stack: Node[] = [{ value: root, key: "", parent: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node.value === "string") {
      if (UNPAIRED_SURROGATE.test(node.value)) return pathOf(node);
    } else if (node.value !== null && typeof node.value === "object") {
      for (const [key, child] of Object.entries(node.value)) {
        if (UNPAIRED_SURROGATE.test(key)) return pathOf(node);
        stack.push({ value: child, key, parent: node });
      }
    }
  }
  return null;
}
