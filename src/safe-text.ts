// Text from the API or the user's file made safe to print.

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
  keepNewlines?: boolean;
}

/** Whether `text` holds a character printable() would escape. */
export function hasUnsafe(text: string): boolean {
  return UNSAFE.test(text);
}

export function replaceUnsafe(text: string, encode: (ch: string) => string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_BUT_NEWLINE, encode) : text;
}

export function printable(text: string, opts: PrintableOptions = {}): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(opts.keepNewlines ? UNSAFE_BUT_NEWLINE : UNSAFE_ALL, escapeChar);
}

export function safeJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space);
  if (text === undefined) return "null";
  return UNSAFE.test(text) ? text.replace(UNSAFE_BUT_NEWLINE, escapeChar) : text;
}

export function sarifMessage(text: string): string {
  return printable(text).replace(/[[\]]/g, "\\$&");
}
