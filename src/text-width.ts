// Display width and fitting text to a terminal's columns. A character counts 2 columns when East Asian
// wide or fullwidth (CJK, Hangul, fullwidth forms, most emoji), 0 when combining or a colour escape,
// else 1. Callers pass text that is already redacted and printable (src/redact.ts, safe-text.ts):
// what is cut here can no longer hold a secret.

const SGR = /\u001b\[[0-9;]*m/g;

/** Colour escapes (SGR) removed. */
export function stripAnsi(s: string): string {
  return s.replace(SGR, "");
}

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

function charWidth(cp: number): number {
  if ((cp >= 0x0300 && cp <= 0x036f) || (cp >= 0x200b && cp <= 0x200f) || cp === 0xfe0f) return 0;
  return isWide(cp) ? 2 : 1;
}

/** Columns `s` takes on a terminal (colour escapes take none). */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of stripAnsi(s)) w += charWidth(ch.codePointAt(0)!);
  return w;
}

/** `s` cut to at most `width` columns, ending in … when cut (colour escapes dropped from a cut text). */
export function clipWidth(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return "";
  let out = "";
  let w = 0;
  for (const ch of stripAnsi(s)) {
    const cw = charWidth(ch.codePointAt(0)!);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** Splits `s` into pieces of at most `width` columns (a long word broken where it must). */
function breakWidth(s: string, width: number): string[] {
  const out: string[] = [];
  let cur = "";
  let w = 0;
  for (const ch of stripAnsi(s)) {
    const cw = charWidth(ch.codePointAt(0)!);
    if (w + cw > width && cur !== "") {
      out.push(cur);
      cur = "";
      w = 0;
    }
    cur += ch;
    w += cw;
  }
  if (cur !== "") out.push(cur);
  return out;
}

export interface FitOptions {
  /**
   * A word longer than a whole line: `clip` cuts it with … (values), `break` splits it (messages, nothing lost).
   * Default clip.
   */
  long?: "clip" | "break";
}

/**
 * One line fitted to `width` columns: words carried to continuation lines indented four more than
 * the line (at most half the width); a word longer than a line is cut or broken (FitOptions.long).
 */
export function fitLine(line: string, width: number, opts: FitOptions = {}): string[] {
  if (displayWidth(line) <= width) return [line];
  const lead = /^ */.exec(stripAnsi(line))![0].length;
  const hang = " ".repeat(Math.min(lead + 4, Math.floor(width / 2)));
  const words = line.slice(line.length - line.trimStart().length).split(" ");
  const lines: string[] = [];
  let cur = line.slice(0, line.length - line.trimStart().length);
  let curW = displayWidth(cur);
  let fresh = true;
  const push = () => {
    lines.push(cur.trimEnd());
    cur = hang;
    curW = hang.length;
    fresh = true;
  };
  for (const word of words) {
    const ww = displayWidth(word);
    const sep = fresh ? 0 : 1;
    if (curW + sep + ww <= width) {
      cur += (fresh ? "" : " ") + word;
      curW += sep + ww;
      fresh = false;
      continue;
    }
    if (!fresh) push();
    const room = width - curW;
    if (ww <= room) {
      cur += word;
      curW += ww;
      fresh = false;
    } else if (opts.long === "break") {
      const parts = breakWidth(word, room);
      for (let i = 0; i < parts.length; i++) {
        cur += parts[i];
        curW += displayWidth(parts[i]!);
        fresh = false;
        if (i < parts.length - 1) push();
      }
    } else {
      cur += clipWidth(word, room);
      curW = width;
      fresh = false;
    }
  }
  if (!fresh || lines.length === 0) lines.push(cur.trimEnd());
  return lines;
}

/** Every line of `text` fitted to `width` columns (fitLine); `undefined` width leaves it as it is. */
export function fitText(text: string, width: number | undefined, opts: FitOptions = {}): string {
  if (width === undefined) return text;
  return text
    .split("\n")
    .flatMap((l) => fitLine(l, width, opts))
    .join("\n");
}

/**
 * A table of columns padded to their widths, two spaces apart, fitted to `width`: while too wide, the
 * widest column is narrowed (down to `min` columns) and its cells cut with …; the last column is not padded.
 */
export function layoutTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  width: number | undefined,
  opts: { indent?: string; min?: number } = {},
): string[] {
  const indent = opts.indent ?? "";
  const min = opts.min ?? 8;
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ""))));
  const total = () => indent.length + widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  if (width !== undefined) {
    while (total() > width) {
      let i = widths.indexOf(Math.max(...widths));
      if (widths[i]! <= min) break;
      widths[i] = Math.max(min, widths[i]! - (total() - width));
      i = -1;
    }
  }
  const pad = (s: string, w: number) => s + " ".repeat(Math.max(0, w - displayWidth(s)));
  const line = (values: readonly string[]) =>
    (
      indent +
      values
        .map((v, i) => (i === values.length - 1 ? clipWidth(v, widths[i]!) : pad(clipWidth(v, widths[i]!), widths[i]!)))
        .join("  ")
    ).trimEnd();
  return [line(header), ...rows.map(line)];
}
