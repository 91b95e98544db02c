// Display width and fitting text to a terminal's columns. The width of a character is string-width's
// (East Asian wide and fullwidth characters and emoji take 2 columns, combining marks and colour escapes
// none, a grapheme cluster such as a family emoji or a flag counts once). Callers pass text that is
// already redacted and printable (src/redact.ts, safe-text.ts): what is cut here can no longer hold a
// secret. Lines are broken at spaces, and a word longer than a line at its token boundaries (after
// `/ , ; & ? =`), never inside an id or a path segment that fits a line; a colour or dim run a break
// splits is closed at the end of its line and opened again on the next.
import { createRequire } from "node:module";

const SGR = /\u001b\[[0-9;]*m/g;
const SGR_ONE = /^\u001b\[([0-9;]*)m$/;
const RESET = "\u001b[0m";
/** Printable ASCII and colour escapes only: one column a character, escapes none. */
const PLAIN = /^(?:[\x20-\x7e]|\u001b\[[0-9;]*m)*$/;

let fullWidth: ((s: string) => number) | undefined;
let segmenter: Intl.Segmenter | undefined;

/**
 * string-width, loaded the first time a text that is not plain ASCII is measured: setting it up (its
 * Unicode tables, an Intl.Segmenter, its emoji expressions) costs more than a command's own start, and
 * most texts are plain. In the bundled executable it is bundled and initialised on first use
 * (scripts/bundle-cli.mjs); in the library, required from node_modules.
 */
function stringWidth(s: string): number {
  if (PLAIN.test(s)) return s.replace(SGR, "").length;
  fullWidth ??= (
    (typeof require === "function"
      ? require("string-width")
      : createRequire(import.meta.url)("string-width")) as typeof import("string-width")
  ).default;
  return fullWidth(s);
}

/** Grapheme clusters, segmented by an Intl.Segmenter made on first use (it loads ICU's break rules). */
function graphemeSegments(s: string): Intl.Segments {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return segmenter.segment(s);
}

/** Colour escapes (SGR) removed. */
function stripAnsi(s: string): string {
  return s.replace(SGR, "");
}

/** Columns `s` takes on a terminal (colour escapes take none). */
export function displayWidth(s: string): number {
  return stringWidth(s);
}

/** The grapheme clusters of `s` (no colour escapes) with their widths. */
function clusters(s: string): Array<[string, number]> {
  if (PLAIN.test(s)) return [...s].map((c) => [c, 1]);
  return [...graphemeSegments(s)].map(({ segment }) => [segment, stringWidth(segment)]);
}

/** The longest start of `s` (no escapes) within `width` columns. */
function headWithin(s: string, width: number): string {
  let out = "";
  let w = 0;
  for (const [g, gw] of clusters(s)) {
    if (w + gw > width) break;
    out += g;
    w += gw;
  }
  return out;
}

/** The longest end of `s` (no escapes) within `width` columns. */
function tailWithin(s: string, width: number): string {
  let out = "";
  let w = 0;
  for (const [g, gw] of clusters(s).reverse()) {
    if (w + gw > width) break;
    out = g + out;
    w += gw;
  }
  return out;
}

/** `s` cut to at most `width` columns, ending in … when cut (colour escapes dropped from a cut text). */
export function clipWidth(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return "";
  return `${headWithin(stripAnsi(s), width - 1)}…`;
}

/**
 * A URL cut in the middle to at most `width` columns: its scheme and host kept, then …, then as much of
 * its end as fits, from a `/` when the file name fits (`https://cdn.example.com/…/app.js`). Text that
 * is not a URL with a host, or a width that cannot hold the host, is cut at the end (clipWidth).
 */
export function clipUrl(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  const plain = stripAnsi(s);
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#\s]+\/?)(.*)$/i.exec(plain);
  if (!m) return clipWidth(plain, width);
  const head = m[1]!;
  const rest = m[2]!;
  const room = width - displayWidth(head) - 1;
  // At least `/x` of the end beside the host, else the host is cut like any text.
  if (room < 2 || rest === "") return clipWidth(plain, width);
  let tail = tailWithin(rest, room);
  const slash = tail.indexOf("/");
  if (slash >= 0 && slash < tail.length - 1) tail = tail.slice(slash);
  return `${head}…${tail}`;
}

/** Columns a URL's scheme, host, … and file name take (clipUrl's shortest helpful cut). */
function urlEssentials(s: string): number {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#\s]+\/?)(.*)$/i.exec(stripAnsi(s));
  if (!m) return 0;
  const file = m[2]!.split(/[?#]/)[0]!.split("/").at(-1) ?? "";
  return displayWidth(m[1]!) + 2 + displayWidth(file);
}

export interface FitOptions {
  /**
   * A word longer than a whole line: `clip` cuts it with … (values), `break` splits it at its token
   * boundaries (messages, nothing lost). Default clip.
   */
  long?: "clip" | "break";
  /** Columns continuation lines are indented by (default: four more than the line, at most half the width). */
  hang?: number;
}

/**
 * Pieces of a word longer than a line, each ending after a token boundary (`/ , ; & ? =`); a piece
 * still longer than `width` (no boundary in it) is split between characters, escapes kept.
 */
function wordPieces(word: string, width: number): string[] {
  const tokens = word.match(/[^/,;&?=]*[/,;&?=]*/g)!.filter((t) => t !== "");
  const out: string[] = [];
  for (const t of tokens) {
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
  /** How a cell too wide is cut: at its end (default), or a URL in its middle (clipUrl). */
  clip?: "end" | "url";
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

/**
 * A table of columns padded to their widths, two spaces apart, fitted to `width` (one line per row): a
 * column narrower than its share keeps its width, the wider ones share the rest and their cells are cut
 * (with …, a URL in its middle); columns that yield are narrowed first and dropped when the others would
 * be cut too short. The last column is not padded.
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
  // A URL is comfortable when its host and file name show; any other column at 20 columns.
  const comfortable = cols.map((c, i) =>
    c.clip === "url" ? Math.max(COMFORTABLE, ...rows.map((r) => urlEssentials(r[i] ?? ""))) : COMFORTABLE,
  );
  let shown = cols.map((_, i) => i);
  let widths = natural;
  if (width !== undefined) {
    for (;;) {
      const room = width - indent.length - 2 * (shown.length - 1);
      const yields = shown.map((i) => rank(cols[i]!) > 0);
      // A URL column is given what shows its host and file name first, leaving the others up to 20 each.
      const reserved = shown.reduce(
        (a, i, k) => (yields[k] || cols[i]!.clip === "url" ? a : a + Math.min(natural[i]!, COMFORTABLE)),
        0,
      );
      const mins = shown.map((i, k) => {
        const base = Math.min(natural[i]!, cols[i]!.min ?? opts.min ?? 8);
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
        fit === undefined ||
        shown.some((i, k) => !yields[k] && fit.widths[k]! < Math.min(natural[i]!, comfortable[i]!));
      if (cramped && drop >= 0) {
        shown = shown.filter((_, k) => k !== drop);
        continue;
      }
      const all = [...natural];
      shown.forEach((i, k) => {
        all[i] = fit ? fit.widths[k]! : mins[k]!;
      });
      widths = all;
      break;
    }
  }
  const pad = (s: string, w: number) => s + " ".repeat(Math.max(0, w - displayWidth(s)));
  const cut = (s: string, i: number) => (cols[i]!.clip === "url" ? clipUrl(s, widths[i]!) : clipWidth(s, widths[i]!));
  const line = (values: readonly string[]) => {
    const text = (
      indent +
      shown
        .map((i, k) => (k === shown.length - 1 ? cut(values[i] ?? "", i) : pad(cut(values[i] ?? "", i), widths[i]!)))
        .join("  ")
    ).trimEnd();
    return width === undefined ? text : clipWidth(text, width);
  };
  return [line(cols.map((c) => c.title)), ...rows.map(line)];
}
