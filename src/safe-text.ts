// Text from the API or the user's file made safe to print: every control character (C0, DEL, C1, so
// the ESC that starts a cursor-up or erase-line sequence, CR, backspace, BEL) and every invisible
// line-breaking or bidirectional character is shown as a visible escape, so that a value can neither
// move the cursor, erase or overwrite lines, nor reorder or break the line it is printed on.
//
// The notation is JSON's: \n \r \t \b \f, and \uXXXX for the rest (ESC is \u001b). JSON.stringify
// already writes C0 controls so, hence a quoted value and a bare one read alike. Pure; renderers call it
// on each untrusted string before laying it out or colouring it.

/** C0 controls, DEL, C1 controls, U+061C, U+200E/F, U+2028/9, U+202A–E, U+2066–9. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, "g");
/** The same without \n (U+000A), for zoneform's own multi-line messages. */
const UNSAFE_BUT_NEWLINE =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

function escapeChar(ch: string): string {
  return SHORT[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

export interface PrintableOptions {
  /** Keep real newlines (a message zoneform made multi-line on purpose); every other character is escaped. */
  keepNewlines?: boolean;
}

/**
 * `text` with its control, line-breaking and bidirectional characters escaped (`\u001b[1A` is shown as
 * the nine characters `\u001b[1A`, a newline as `\n`). Text without any is returned as it is.
 */
export function printable(text: string, opts: PrintableOptions = {}): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(opts.keepNewlines ? UNSAFE_BUT_NEWLINE : UNSAFE_ALL, escapeChar);
}
