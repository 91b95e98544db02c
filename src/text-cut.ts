// Display width, and cutting a text to a width with `…`: at its end, in its middle, a URL in its middle.
import { createRequire } from "node:module";

export const SGR = /\u001b\[[0-9;]*m/g;
/** Printable ASCII and colour escapes only: one column a character, escapes none. */
const PLAIN = /^(?:[\x20-\x7e]|\u001b\[[0-9;]*m)*$/;

let fullWidth: ((s: string) => number) | undefined;
let segmenter: Intl.Segmenter | undefined;

function stringWidth(s: string): number {
  if (PLAIN.test(s)) return s.replace(SGR, "").length;
  fullWidth ??= (
    (typeof require === "function"
      ? require("string-width")
      : createRequire(import.meta.url)("string-width")) as typeof import("string-width")
  ).default;
  return fullWidth(s);
}

function graphemeSegments(s: string): Intl.Segments {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return segmenter.segment(s);
}

/** Colour escapes (SGR) removed. */
export function stripAnsi(s: string): string {
  return s.replace(SGR, "");
}

/** Columns `s` takes on a terminal (colour escapes take none). */
export function displayWidth(s: string): number {
  return stringWidth(s);
}

/** The grapheme clusters of `s` (no colour escapes) with their widths. */
export function clusters(s: string): Array<[string, number]> {
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

export function clipWidth(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return "";
  return `${headWithin(stripAnsi(s), width - 1)}…`;
}

const BOUNDARY = /[_.\-/:@ ]/;
const LAST_BOUNDARY = /[_.\-/:@ ][^_.\-/:@ ]*$/;

export function clipMiddle(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  const plain = stripAnsi(s);
  if (width < 5) return clipWidth(plain, width);
  const budget = width - 1;
  let head = headWithin(plain, Math.floor(budget / 2));
  const last = head.search(LAST_BOUNDARY);
  if (!BOUNDARY.test(plain[head.length] ?? ""))
    head = last + 1 >= budget / 3 ? head.slice(0, last + 1) : headWithin(plain, Math.ceil(budget / 3));
  let tail = tailWithin(plain, budget - displayWidth(head));
  const first = tail.search(BOUNDARY);
  if (!BOUNDARY.test(plain[plain.length - tail.length - 1] ?? "") && first > 0 && first < tail.length / 3)
    tail = tail.slice(first);
  return `${head}…${tail.trimStart()}`;
}

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
export function urlEssentials(s: string): number {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#\s]+\/?)(.*)$/i.exec(stripAnsi(s));
  if (!m) return 0;
  const file = m[2]!.split(/[?#]/)[0]!.split("/").at(-1) ?? "";
  return displayWidth(m[1]!) + 2 + displayWidth(file);
}
