// Fitting text to a terminal's columns (widths and cuts: text-cut.ts). Lines are broken at spaces, and a
// word longer than a line at its token boundaries (after `/ , ; & ? =`), never inside an id or a path
// segment that fits a line; a colour or dim run a break splits is closed at the end of its line and opened
// again on the next. Tables fit their columns, a cell cut or wrapped in its column (layoutTable).
import { clipMiddle, clipUrl, clipWidth, clusters, displayWidth, SGR, stripAnsi, urlEssentials } from "./text-cut.js";

export { clipMiddle, clipUrl, clipWidth, displayWidth } from "./text-cut.js";

const SGR_ONE = /^\u001b\[([0-9;]*)m$/;
const RESET = "\u001b[0m";

export interface FitOptions {
  /**
   * A word longer than a whole line: `clip` cuts it with … (values), `break` splits it at its token
   * boundaries (messages, nothing lost). Default clip.
   */
  long?: "clip" | "break";
  /** Columns continuation lines are indented by (default: four more than the line, at most half the width). */
  hang?: number;
}

/** A message's tokens, each ending after `/ , ; & ? =`. */
const TOKENS = /[^/,;&?=]*[/,;&?=]*/g;
/** An identifier's parts, each ending after `_ . - / : @`, a space or a message's boundary. */
const PARTS = /[^/,;&?=_.:@ -]*[/,;&?=_.:@ -]*/g;

/**
 * Pieces of a word longer than a line, each ending after a token boundary (`tokens`); a piece still
 * longer than `width` (no boundary in it) is split between characters, escapes kept.
 */
function wordPieces(word: string, width: number, tokens: RegExp = TOKENS): string[] {
  const parts = word.match(tokens)!.filter((t) => t !== "");
  const out: string[] = [];
  for (const t of parts) {
    if (displayWidth(t) <= width) {
      out.push(t);
      continue;
    }
    let cur = "";
    let w = 0;
    for (const part of t.split(/(\u001b\[[0-9;]*m)/)) {
      if (SGR_ONE.test(part)) {
        cur += part;
        continue;
      }
      for (const [g, gw] of clusters(part)) {
        if (w + gw > width && w > 0) {
          out.push(cur);
          cur = "";
          w = 0;
        }
        cur += g;
        w += gw;
      }
    }
    if (cur !== "") out.push(cur);
  }
  return out;
}

/**
 * One line fitted to `width` columns: words carried to continuation lines indented four more than
 * the line (at most half the width); a word longer than a line is cut or broken (FitOptions.long).
 * A colour run that goes over a break is closed at the end of its line and opened again on the next.
 */
export function fitLine(line: string, width: number, opts: FitOptions = {}): string[] {
  if (displayWidth(line) <= width) return [line];
  const lead = /^ */.exec(stripAnsi(line))![0].length;
  const hang = " ".repeat(Math.min(opts.hang ?? lead + 4, Math.floor(width / 2)));
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
  const add = (piece: string) => {
    cur += piece;
    curW += displayWidth(piece);
    fresh = false;
  };
  for (const word of words) {
    const ww = displayWidth(word);
    const sep = fresh ? 0 : 1;
    if (curW + sep + ww <= width) {
      add((fresh ? "" : " ") + word);
      continue;
    }
    if (opts.long === "break" && ww > width - hang.length) {
      // Longer than any line: its pieces start on this line when the first fits there.
      const pieces = wordPieces(word, width - hang.length);
      if (!fresh) {
        if (curW + 1 + displayWidth(pieces[0]!) <= width) add(" ");
        else push();
      }
      for (const piece of pieces) {
        if (!fresh && curW + displayWidth(piece) > width) push();
        add(piece);
      }
      continue;
    }
    if (!fresh) push();
    const room = width - curW;
    if (ww <= room) add(word);
    else if (opts.long === "break") {
      for (const piece of wordPieces(word, width - hang.length)) {
        if (!fresh && curW + displayWidth(piece) > width) push();
        add(piece);
      }
    } else {
      add(clipWidth(word, room));
      curW = width;
    }
  }
  if (!fresh || lines.length === 0) lines.push(cur.trimEnd());
  return closeStyles(lines);
}

/** The SGR escapes in force at the end of `line`, given those in force at its start. */
function stylesAfter(line: string, open: string[]): string[] {
  let styles = open;
  for (const m of line.matchAll(SGR)) {
    const params = SGR_ONE.exec(m[0])![1]!;
    // A reset (`0`, empty) or a closing code (22-29, 39, 49: normal intensity, colour off, …) ends a run.
    if (params === "" || params === "0") styles = [];
    else if (/^(2[0-9]|39|49)$/.test(params)) styles = styles.length > 0 ? styles.slice(0, -1) : [];
    else styles = [...styles, m[0]];
  }
  return styles;
}

/** Each line of a broken one ends with its open styles closed, and the next opens them again after its indent. */
function closeStyles(lines: string[]): string[] {
  let open: string[] = [];
  return lines.map((l) => {
    const reopened = open.length > 0 ? l.replace(/^ */, (indent) => indent + open.join("")) : l;
    open = stylesAfter(l, open);
    return open.length > 0 ? reopened + RESET : reopened;
  });
}

/** Every line of `text` fitted to `width` columns (fitLine); `undefined` width leaves it as it is. */
export function fitText(text: string, width: number | undefined, opts: FitOptions = {}): string {
  if (width === undefined) return text;
  return text
    .split("\n")
    .flatMap((l) => fitLine(l, width, opts))
    .join("\n");
}

/** A column of a table (layoutTable); a bare string is a title with the defaults. */
export interface TableColumn {
  title: string;
  /**
   * How a cell too wide is cut: in its middle (default; at its `end` for a yielding column, as a hash is told by
   * its start), a URL in its middle, or never (`wrap`: prose and lists go on over lines at their spaces).
   */
  clip?: "middle" | "end" | "url" | "wrap";
  /** The narrowest the column is made before a table gives up (default 8, or less when all it holds is). */
  min?: number;
  /**
   * A column that yields first when the table is too wide (a hash, a host the URL shows too): narrowed to
   * its `min` before the others, and dropped while another column is cut short (under 20 columns, or a
   * URL whose host and file name do not both show); a higher number is dropped first (true is 1), then
   * the rightmost.
   */
  yields?: boolean | number;
}

function rank(c: TableColumn): number {
  return c.yields === true ? 1 : typeof c.yields === "number" ? c.yields : 0;
}

/** Below this, a column cut to share the width makes a table drop a yielding column (TableColumn.yields). */
const COMFORTABLE = 20;

/**
 * Widths for `cols` within `room` columns (separators excluded): as they are when they fit; else the
 * yielding columns at their minimum and the others capped at one width, the largest that fits, so
 * that a narrow column keeps what it holds and the wide ones share the rest.
 */
function shareWidth(
  natural: readonly number[],
  mins: readonly number[],
  yields: readonly boolean[],
  room: number,
): { widths: number[] } | undefined {
  if (natural.reduce((a, b) => a + b, 0) <= room) return { widths: [...natural] };
  const widths = natural.map((n, i) => (yields[i] ? Math.min(n, mins[i]!) : n));
  const fixed = widths.reduce((a, w, i) => (yields[i] ? a + w : a), 0);
  const rest = room - fixed;
  const sum = (cap: number) =>
    natural.reduce((a, n, i) => (yields[i] ? a : a + Math.min(n, Math.max(mins[i]!, cap))), 0);
  if (sum(0) > rest) return undefined;
  let cap = 0;
  while (sum(cap + 1) <= rest && cap < Math.max(...natural)) cap++;
  let spare = rest - sum(cap);
  for (let i = 0; i < natural.length; i++) {
    if (yields[i]) continue;
    widths[i] = Math.min(natural[i]!, Math.max(mins[i]!, cap));
    // What is left after the cap goes to the capped columns, left to right, one column each.
    if (spare > 0 && widths[i]! < natural[i]!) {
      widths[i]!++;
      spare--;
    }
  }
  return { widths };
}

/** The columns shown and the width of each within `width` (indent excluded): yielding ones narrowed, then dropped. */
function columnWidths(
  cols: readonly TableColumn[],
  rows: ReadonlyArray<readonly string[]>,
  natural: readonly number[],
  width: number,
  min: number | undefined,
): { shown: number[]; widths: number[] } {
  // A URL is comfortable when its host and file name show; any other column at 20 columns.
  const comfortable = cols.map((c, i) =>
    c.clip === "url" ? Math.max(COMFORTABLE, ...rows.map((r) => urlEssentials(r[i] ?? ""))) : COMFORTABLE,
  );
  let shown = cols.map((_, i) => i);
  for (;;) {
    const room = width - 2 * (shown.length - 1);
    const yields = shown.map((i) => rank(cols[i]!) > 0);
    // A URL column is given what shows its host and file name first, leaving the others up to 20 each.
    const reserved = shown.reduce(
      (a, i, k) => (yields[k] || cols[i]!.clip === "url" ? a : a + Math.min(natural[i]!, COMFORTABLE)),
      0,
    );
    const mins = shown.map((i, k) => {
      const base = Math.min(natural[i]!, cols[i]!.min ?? min ?? 8);
      if (yields[k] || cols[i]!.clip !== "url") return base;
      return Math.max(base, Math.min(natural[i]!, comfortable[i]!, room - reserved));
    });
    const fit = shareWidth(
      shown.map((i) => natural[i]!),
      mins,
      yields,
      room,
    );
    let drop = -1;
    shown.forEach((i, k) => {
      if (rank(cols[i]!) > 0 && (drop < 0 || rank(cols[i]!) >= rank(cols[shown[drop]!]!))) drop = k;
    });
    const cramped =
      fit === undefined || shown.some((i, k) => !yields[k] && fit.widths[k]! < Math.min(natural[i]!, comfortable[i]!));
    if (cramped && drop >= 0) {
      shown = shown.filter((_, k) => k !== drop);
      continue;
    }
    const widths = [...natural];
    shown.forEach((i, k) => {
      widths[i] = fit ? fit.widths[k]! : mins[k]!;
    });
    return { shown, widths };
  }
}

/** An operator a wrap keeps with the numbers beside it (`3 < 10` stays on one line). */
const OPERATOR = /^(?:[<>=≤≥‹›]|[<>!=]=)$/;

/** Between units: what follows starts a line (pack). */
const NEW_LINE = "\n";

/** A wrapped cell's units: a `; ` list's items whole when they fit, else on lines of their own at their spaces. */
function wrapUnits(s: string, width: number): string[] {
  return s.split(/(?<=;) /).flatMap((item, i, items) => {
    const sep = i < items.length - 1 ? " " : "";
    if (displayWidth(item) <= width) return [item + sep];
    const words: string[] = [];
    for (const w of item.split(" ")) {
      const before = words.at(-1)?.split(" ").at(-1);
      if (before !== undefined && (OPERATOR.test(w) || OPERATOR.test(before))) words[words.length - 1] += ` ${w}`;
      else words.push(w);
    }
    const units = words.flatMap((w, k) => {
      const unit = w + (k < words.length - 1 ? " " : "");
      return displayWidth(w) <= width ? [unit] : wordPieces(unit, width, PARTS);
    });
    return [NEW_LINE, ...units, NEW_LINE];
  });
}

/** Units packed into lines of at most `width` columns, as many on a line as fit. */
function pack(units: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let cur = "";
  for (const u of units) {
    if (cur !== "" && (u === NEW_LINE || displayWidth((cur + u).trimEnd()) > width)) {
      lines.push(cur.trimEnd());
      cur = "";
    }
    if (u !== NEW_LINE) cur += u;
  }
  if (cur !== "" || lines.length === 0) lines.push(cur.trimEnd());
  return lines;
}

/** A cell over lines of its column: prose at its spaces (wrap), an identifier or a URL at its parts. */
function cellLines(s: string, width: number, prose: boolean): string[] {
  if (displayWidth(s) <= width) return [s];
  return pack(prose ? wrapUnits(s, width) : wordPieces(s, width, PARTS), width);
}

/** How a column's cells are cut (TableColumn.clip). */
function cutter(c: TableColumn): (s: string, width: number) => string {
  const clip = c.clip ?? (rank(c) > 0 ? "end" : "middle");
  return clip === "url" ? clipUrl : clip === "end" ? clipWidth : clipMiddle;
}

/** Cells each cut by `cut`, or all left whole when that would make two different ones alike. */
export function cutApart(cells: readonly string[], cut: (s: string) => string): string[] {
  const out = cells.map(cut);
  return new Set(out).size === new Set(cells).size ? out : [...cells];
}

/** Whether cutting the cells to `width` leaves every two different cells different. */
function keepsApart(cells: readonly string[], width: number, cut: (s: string, width: number) => string): boolean {
  const distinct = new Set(cells);
  return new Set([...distinct].map((c) => cut(c, width))).size === distinct.size;
}

/**
 * A table of columns padded to their widths, two spaces apart, fitted to `width`: a column narrower than its
 * share keeps its width, the wider ones share the rest and their cells are cut (TableColumn.clip), or wrapped
 * in their column, the others blank there, when a cut would make two of its different cells alike, so that
 * every row stays told apart. Columns that yield are narrowed first and dropped when the others would be cut
 * too short.
 */
export function layoutTable(
  header: ReadonlyArray<string | TableColumn>,
  rows: ReadonlyArray<readonly string[]>,
  width: number | undefined,
  opts: { indent?: string; min?: number } = {},
): string[] {
  const indent = opts.indent ?? "";
  const cols = header.map((h) => (typeof h === "string" ? { title: h } : h));
  const natural = cols.map((c, i) => Math.max(displayWidth(c.title), ...rows.map((r) => displayWidth(r[i] ?? ""))));
  const { shown, widths } =
    width === undefined
      ? { shown: cols.map((_, i) => i), widths: natural }
      : columnWidths(cols, rows, natural, width - indent.length, opts.min);
  const fit = shown.map((i) => {
    const [w, c, cut] = [widths[i]!, cols[i]!, cutter(cols[i]!)];
    const column = rows.map((r) => r[i] ?? "");
    const wrap = c.clip === "wrap" || !keepsApart(column, w, cut);
    return (s: string) => (displayWidth(s) <= w ? [s] : wrap ? cellLines(s, w, c.clip === "wrap") : [cut(s, w)]);
  });
  const pad = (s: string, w: number) => s + " ".repeat(Math.max(0, w - displayWidth(s)));
  const line = (values: readonly string[]) => {
    const text = (
      indent + values.map((v, k) => (k === values.length - 1 ? v : pad(v, widths[shown[k]!]!))).join("  ")
    ).trimEnd();
    return width === undefined ? text : clipWidth(text, width);
  };
  const out = [line(shown.map((i) => clipWidth(cols[i]!.title, widths[i]!)))];
  for (const r of rows) {
    const cells = shown.map((i, k) => fit[k]!(r[i] ?? ""));
    for (let j = 0; j < Math.max(...cells.map((c) => c.length)); j++) out.push(line(cells.map((c) => c[j] ?? "")));
  }
  return out;
}
