// Text from the API or the user's file made safe to print: every control character (C0, DEL, C1, so
// the ESC that starts a cursor-up or erase-line sequence, CR, backspace, BEL) and every invisible,
// line-breaking or bidirectional character is shown as a visible escape, so that a value can neither
// move the cursor, erase or overwrite lines, reorder or break the line it is printed on, nor hide
// characters a reviewer would not see (zero-width spaces and joiners, tag characters, variation
// selectors, a soft hyphen).
//
// The notation is JSON's: \n \r \t \b \f, and \uXXXX for the rest (ESC is \u001b; a character beyond
// U+FFFF, such as the tag character U+E0041, is its two UTF-16 halves, \udb40\udc41, as in JSON).
// JSON.stringify already writes C0 controls so, hence a quoted value and a bare one read alike. Pure;
// renderers call it on each untrusted string before laying it out or colouring it. Markdown has its
// own encoder on top of this one (safe-markdown.ts); JSON output is `safeJson`, SARIF text `sarifMessage`.

/**
 * Every character printable() escapes:
 * - C0 controls, DEL, C1 controls;
 * - U+00AD soft hyphen, U+034F combining grapheme joiner, U+061C Arabic letter mark, U+115F/U+1160
 *   and U+3164/U+FFA0 Hangul fillers, U+17B4/U+17B5, U+180B–U+180F Mongolian selectors and separator;
 * - U+200B–U+200F zero-width space, non-joiner, joiner, LRM, RLM; U+2028/U+2029 separators;
 * - U+202A–U+202E bidirectional embeddings and overrides; U+2060–U+206F word joiner, invisible
 *   operators, bidirectional isolates and deprecated format characters;
 * - U+FE00–U+FE0F variation selectors, U+FEFF byte order mark, U+FFF9–U+FFFB annotation characters;
 * - U+1D173–U+1D17A musical format characters, U+E0000–U+E007F tag characters, U+E0100–U+E01EF
 *   variation selectors supplement;
 * - an unpaired surrogate (not a character at all).
 */
const UNSAFE_CLASS =
  "\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f" +
  "\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff9-\\ufffb";
const ASTRAL = "\\u{1d173}-\\u{1d17a}\\u{e0000}-\\u{e007f}\\u{e0100}-\\u{e01ef}";
const LONE = "\\p{Cs}";
const UNSAFE = new RegExp(`[${UNSAFE_CLASS}${ASTRAL}${LONE}]`, "u");
const UNSAFE_ALL = new RegExp(UNSAFE.source, "gu");
/** The same without \n (U+000A), for zoneform's own multi-line messages. */
const UNSAFE_BUT_NEWLINE = new RegExp(
  `[${UNSAFE_CLASS.replace("\\u0000-\\u001f", "\\u0000-\\u0009\\u000b-\\u001f")}${ASTRAL}${LONE}]`,
  "gu",
);

const SHORT: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

function hex4(unit: number): string {
  return `\\u${unit.toString(16).padStart(4, "0")}`;
}

function escapeChar(ch: string): string {
  return SHORT[ch] ?? (ch.length === 1 ? hex4(ch.charCodeAt(0)) : hex4(ch.charCodeAt(0)) + hex4(ch.charCodeAt(1)));
}

export interface PrintableOptions {
  /** Keep real newlines (a message zoneform made multi-line on purpose); every other character is escaped. */
  keepNewlines?: boolean;
}

/** Whether `text` holds a character printable() would escape. */
export function hasUnsafe(text: string): boolean {
  return UNSAFE.test(text);
}

/** `text` with each character printable() escapes, but a newline, replaced by what `encode` makes of it. */
export function replaceUnsafe(text: string, encode: (ch: string) => string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_BUT_NEWLINE, encode) : text;
}

/**
 * `text` with its control, invisible, line-breaking and bidirectional characters escaped (`\u001b[1A`
 * is shown as the nine characters `\u001b[1A`, a newline as `\n`, a zero-width space as `\u200b`). Text
 * without any is returned as it is.
 */
export function printable(text: string, opts: PrintableOptions = {}): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(opts.keepNewlines ? UNSAFE_BUT_NEWLINE : UNSAFE_ALL, escapeChar);
}

/**
 * A value as JSON (JSON.stringify's `space`), with every character printable() escapes written as a
 * JSON escape (`\u202e`, `\u200b`, `\udb40\udc41`): the same value for a JSON reader, and nothing
 * invisible or reordering for a terminal, a log or a diff of the file. Only strings can hold such
 * characters, and there JSON's `\uXXXX` means the character itself, so nothing else changes.
 */
export function safeJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space);
  if (text === undefined) return "null";
  // JSON.stringify has escaped every control character inside strings (a raw newline is its indentation);
  // what is left is written \uXXXX, which JSON reads back as the same character.
  return UNSAFE.test(text) ? text.replace(UNSAFE_BUT_NEWLINE, escapeChar) : text;
}

/**
 * Plain text of a SARIF message (`message.text`): printable, and `[` `]` escaped with a backslash as
 * the SARIF 2.1.0 embedded-link syntax requires of literal brackets (§3.11.6), so that data such as
 * `[docs](https://evil.example)` is shown as text and never becomes a link in a viewer.
 */
export function sarifMessage(text: string): string {
  return printable(text).replace(/[[\]]/g, "\\$&");
}
