// The one Markdown (and HTML-in-Markdown) encoder: every renderer that writes GitHub Markdown (plan and
// audit Markdown, `show --format markdown`, the Action's pull-request comment and job summary) puts
// text from the API, the file or a pull request through these functions, so that data is shown as
// the characters it is and never becomes markup, a link, a mention or a reference. Pure.
//
// What GitHub would otherwise make live, and how each is neutralised:
// - HTML (`<img src=…>`, `</details>`, `<!--`) and character references (`&#x202e;`, `&amp;`): `<` `>`
//   `&` are written `&lt;` `&gt;` `&amp;`, so data can never open a tag or a comment nor name a
//   character; inside code, neither is read at all.
// - Links, images, emphasis, code, strikethrough, math, table cells and, at the start, headings and
//   lists (`[x](u)`, `![x](u)`, `*` `_` `~` `` ` `` `$` `|` `#` `-` `1.`): backslash-escaped in text.
// - What GitHub links after rendering, which no backslash escape stops (it works on the rendered text):
//   autolinks (`https://…`, `www.…`, `a@b.example`), mentions (`@user`, `@org/team`), issue and pull
//   request references (`#123`, `GH-123`, `owner/repo#1`) and commit hashes: a word holding one is
//   written as a code span, which GitHub neither links nor mentions from.
// - Invisible and bidirectional characters: escaped visibly first (printable(), `\u200b`).
// Inside code spans and fenced blocks the fence is longer than any run of backticks in the content.
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

/** `text` cut to at most `max` characters, the cut marked `…` (give it redacted text). */
function cut(text: string, max: number | undefined): string {
  return max === undefined || text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}${CUT}`;
}

/**
 * A word GitHub would turn into a link, a mention or a reference on the rendered page: a URL or
 * `www.` host, an e-mail address or mention (`@`), an issue reference (`#12`, `GH-12`, `owner/repo#12`),
 * a hexadecimal run that could be a commit hash.
 */
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

/**
 * `&` `<` `>` as character references; the characters that make inline markup escaped with a
 * backslash: `\\` `` ` `` `*` `_` `~` (emphasis, code, strikethrough), `[` `]` (links and images: with
 * them escaped, `(url)` and `!` are plain text), `|` (a table cell's end), `$` (GitHub's math). At the
 * start, what would begin a block (`#` heading, `-` `+` list, `=` heading line, `1.` `1)` list) too.
 */
function escapeText(text: string): string {
  return escapeInline(text)
    .replace(/^[#+=-]/, "\\$&")
    .replace(/^(\d+)([.)])/, "$1\\$2");
}

function escapeInline(text: string): string {
  return text.replace(/[&<>\\`*_~[\]|$]/g, (c) => (c === "&" || c === "<" || c === ">" ? HTML_ENTITY[c]! : `\\${c}`));
}

/**
 * A code span of `text` (made printable): the fence is one backtick longer than any run inside, with a
 * space inside each end when the text starts or ends with a backtick or a space. Nothing inside a code
 * span is markup, a reference or a link on GitHub.
 */
export function mdCode(text: string): string {
  const shown = printable(text);
  if (shown === "") return "` `";
  const fence = "`".repeat(longestBacktickRun(shown) + 1);
  const pad = /^[` ]|[` ]$/.test(shown) ? " " : "";
  return `${fence}${pad}${shown}${pad}${fence}`;
}

/**
 * Inline Markdown text of `text` (a message, a description, an error from the API) for a paragraph,
 * a list item, a quote or a heading: printable, every markup character escaped, and each word GitHub
 * would link or mention from written as a code span. `max` cuts it first, marked `…`.
 */
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

/**
 * A live word as a code span holding only the word: the sentence's punctuation around it (`(` before,
 * `:` `,` `.` `;` `!` `?` `)` after, as GitHub's autolinks leave them out) stays text outside the span,
 * unless what is left would not be live (then the whole word is the span, as before).
 */
function liveWord(word: string, first: boolean): string {
  const m = /^([("'[{]*)(.*?)([)"'\]}.,:;!?]*)$/u.exec(word);
  const [lead, core, trail] = m ? [m[1]!, m[2]!, m[3]!] : ["", word, ""];
  // A `)` the URL opened is the URL's (`https://en.wikipedia.org/wiki/A_(b)`).
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

/** A table cell: as mdText, cut to `max` characters (default 200), with `|` escaped even inside code. */
export function mdCell(text: string, max = 200): string {
  return pipesEscaped(mdText(text, max));
}

/** A table cell holding a code span (a hash, a file name, a URL shown whole): see mdCode, mdCell. */
export function mdCodeCell(text: string, max = 200): string {
  return pipesEscaped(mdCode(cut(printable(text), max)));
}

/**
 * Pipes in a cell, which GitHub's table reads before anything else (inside code spans too): each `|`
 * not yet escaped gets its backslash, and a backslash run just before a pipe is doubled so that it
 * cannot escape the pipe's own backslash.
 */
function pipesEscaped(cell: string): string {
  return cell.replace(/(\\*)\|/g, (_all, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes}|` : `${slashes}${slashes}\\|`,
  );
}

/**
 * A fenced code block of `lines` (each made printable, so that none can end the block early): the fence
 * is three backticks, or one longer than any run of backticks in the lines. `info` names the language.
 */
export function mdCodeBlock(lines: readonly string[], info = ""): string {
  const shown = lines.map((l) => printable(l));
  const fence = "`".repeat(Math.max(3, longestBacktickRun(shown.join("\n")) + 1));
  return [`${fence}${info}`, ...shown, fence].join("\n");
}

/** Text inside an HTML element: the one HTML escaper (src/safe-html.ts). */
export function htmlText(text: string): string {
  return escapeHtml(text);
}

/**
 * An HTML `<code>` element of `text`, for places where Markdown is not read (a `<summary>`): GitHub
 * neither mentions, references nor links from inside code.
 */
export function htmlCode(text: string): string {
  return `<code>${htmlText(text)}</code>`;
}
