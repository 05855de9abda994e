/**
 * Control characters (C0, DEL, C1: U+0000–U+001F, U+007F–U+009F, CR, LF and tab among them) and the
 * Unicode line and paragraph separators (U+2028, U+2029): what would let a name or a key break a
 * line where it is printed (the report, the CLI, a log) and pass for text of the service's own.
 */
export const CONTROL_OR_LINE_BREAK = /[\p{Cc}\u2028\u2029]/u;

/** CONTROL_OR_LINE_BREAK less what prose may hold (tab, LF, CR): NUL, escape sequences, C1 and the Unicode separators. */
export const CONTROL_IN_PROSE = /(?![\t\n\r])[\p{Cc}\u2028\u2029]/u;

/**
 * Half a surrogate pair on its own (JSON can carry one as `\ud800`): not a character, and stored it
 * becomes U+FFFD, so a name would read back as something other than what was sent.
 */
export const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `text` with each run of CONTROL_OR_LINE_BREAK made one space, trimmed: for names the service did not get from a form it validates. */
export function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]+/gu, " ").trim();
}
