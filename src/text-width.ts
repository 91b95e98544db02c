// Fitting text to a terminal's columns (widths and cuts: text-cut.ts).
import { clipMiddle, clipUrl, clipWidth, clusters, displayWidth, SGR, stripAnsi, urlEssentials } from "./text-cut.js";

export { clipMiddle, clipUrl, clipWidth, displayWidth } from "./text-cut.js";

const SGR_ONE = /^\u001b\[([0-9;]*)m$/;
const RESET = "\u001b[0m";

export interface FitOptions {
  long?: "clip" | "break";
  hang?: number;
}

const TOKENS = /[^/,;&?=]*[/,;&?=]*/g;
const PARTS = /[^/,;&?=_.:@ -]*[/,;&?=_.:@ -]*/g;

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

function closeStyles(lines: string[]): string[] {
  let open: string[] = [];
  return lines.map((l) => {
    const reopened = open.length > 0 ? l.replace(/^ */, (indent) => indent + open.join("")) : l;
    open = stylesAfter(l, open);
    return open.length > 0 ? reopened + RESET : reopened;
  });
}

export function fitText(text: string, width: number | undefined, opts: FitOptions = {}): string {
  if (width === undefined) return text;
  return text
    .split("\n")
    .flatMap((l) => fitLine(l, width, opts))
    .join("\n");
}

export interface TableColumn {
  title: string;
  clip?: "middle" | "end" | "url" | "wrap";
  min?: number;
  yields?: boolean | number;
}

function rank(c: TableColumn): number {
  return c.yields === true ? 1 : typeof c.yields === "number" ? c.yields : 0;
}

const COMFORTABLE = 20;

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

const OPERATOR = /^(?:[<>=≤≥‹›]|[<>!=]=)$/;

/** Between units: what follows starts a line (pack). */
const NEW_LINE = "\n";

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

function cellLines(s: string, width: number, prose: boolean): string[] {
  if (displayWidth(s) <= width) return [s];
  return pack(prose ? wrapUnits(s, width) : wordPieces(s, width, PARTS), width);
}

/** How a column's cells are cut (TableColumn.clip). */
function cutter(c: TableColumn): (s: string, width: number) => string {
  const clip = c.clip ?? (rank(c) > 0 ? "end" : "middle");
  return clip === "url" ? clipUrl : clip === "end" ? clipWidth : clipMiddle;
}

export function cutApart(cells: readonly string[], cut: (s: string) => string): string[] {
  const out = cells.map(cut);
  return new Set(out).size === new Set(cells).size ? out : [...cells];
}

/** Whether cutting the cells to `width` leaves every two different cells different. */
function keepsApart(cells: readonly string[], width: number, cut: (s: string, width: number) => string): boolean {
  const distinct = new Set(cells);
  return new Set([...distinct].map((c) => cut(c, width))).size === distinct.size;
}

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
