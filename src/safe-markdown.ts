// The one Markdown (and HTML-in-Markdown) encoder.
import { escapeHtml } from "./safe-html.js";
import { printable } from "./safe-text.js";

/** The longest run of backticks in `text`. */
function longestBacktickRun(text: string): number {
  let best = 0;
  for (const m of text.matchAll(/`+/g)) best = Math.max(best, m[0].length);
  return best;
}

/** What marks a cut. */
const CUT = "…";

function cut(text: string, max: number | undefined): string {
  return max === undefined || text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}${CUT}`;
}

const LIVE_WORD = new RegExp(
  [
    ":\\/\\/",
    "^(?:mailto|xmpp|tel|data|javascript|vbscript):",
    "www\\.",
    "@",
    "#\\d",
    "\\bgh-\\d",
    "(?<![0-9a-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\\d)[0-9a-f]{7,}(?![0-9a-z])",
  ].join("|"),
  "i",
);

/** Whether GitHub would make something live of this word (see LIVE_WORD). */
function isLiveWord(word: string): boolean {
  return LIVE_WORD.test(word);
}

/** Markdown text writes these as character references (HTML in Markdown: htmlText). */
const HTML_ENTITY: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

function escapeText(text: string): string {
  return escapeInline(text)
    .replace(/^[#+=-]/, "\\$&")
    .replace(/^(\d+)([.)])/, "$1\\$2");
}

function escapeInline(text: string): string {
  return text.replace(/[&<>\\`*_~[\]|$]/g, (c) => (c === "&" || c === "<" || c === ">" ? HTML_ENTITY[c]! : `\\${c}`));
}

export function mdCode(text: string): string {
  const shown = printable(text);
  if (shown === "") return "` `";
  const fence = "`".repeat(longestBacktickRun(shown) + 1);
  const pad = /^[` ]|[` ]$/.test(shown) ? " " : "";
  return `${fence}${pad}${shown}${pad}${fence}`;
}

export function mdText(text: string, max?: number): string {
  const parts = cut(printable(text), max).split(/( +)/);
  const first = parts.findIndex((p) => p !== "" && !p.startsWith(" "));
  return parts
    .map((part, i) =>
      part === "" || part.startsWith(" ")
        ? part
        : isLiveWord(part)
          ? liveWord(part, i === first)
          : i === first
            ? escapeText(part)
            : escapeInline(part),
    )
    .join("");
}

function liveWord(word: string, first: boolean): string {
  const m = /^([("'[{]*)(.*?)([)"'\]}.,:;!?]*)$/u.exec(word);
  const [lead, core, trail] = m ? [m[1]!, m[2]!, m[3]!] : ["", word, ""];
  let body = core;
  let after = trail;
  while (after.startsWith(")") && count(body, "(") > count(body, ")")) {
    body += ")";
    after = after.slice(1);
  }
  if (body === "" || !isLiveWord(body) || (lead === "" && after === "")) return mdCode(word);
  return `${lead === "" ? "" : first ? escapeText(lead) : escapeInline(lead)}${mdCode(body)}${escapeInline(after)}`;
}

function count(text: string, ch: string): number {
  return text.split(ch).length - 1;
}

export function mdCell(text: string, max = 200): string {
  return pipesEscaped(mdText(text, max));
}

export function mdCodeCell(text: string, max = 200): string {
  return pipesEscaped(mdCode(cut(printable(text), max)));
}

function pipesEscaped(cell: string): string {
  return cell.replace(/(\\*)\|/g, (_all, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes}|` : `${slashes}${slashes}\\|`,
  );
}

export function mdCodeBlock(lines: readonly string[], info = ""): string {
  const shown = lines.map((l) => printable(l));
  const fence = "`".repeat(Math.max(3, longestBacktickRun(shown.join("\n")) + 1));
  return [`${fence}${info}`, ...shown, fence].join("\n");
}

/** Text inside an HTML element: the one HTML escaper (src/safe-html.ts). */
export function htmlText(text: string): string {
  return escapeHtml(text);
}

export function htmlCode(text: string): string {
  return `<code>${htmlText(text)}</code>`;
}
