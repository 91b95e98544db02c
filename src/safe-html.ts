// The one HTML escaper, and the one way HTML is built from data: `html` is a tagged template whose every
// interpolated value is escaped (text and attribute values alike) unless it is itself made by `html`, so
// a script URL, a justification or a header value can never become markup. Pure.
//
// What is escaped: `&` `<` `>` `"` `'` as character references (nothing can open a tag, end an attribute
// value quoted either way, or name a character), after printable() has made control, invisible and
// bidirectional characters visible escapes (`\u202e`), as every other format shows them.
import { printable } from "./safe-text.js";

const ENTITY: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `text` for HTML text or a quoted attribute value: printable, `&<>"'` as character references. */
export function escapeHtml(text: string): string {
  return printable(text).replace(/[&<>"']/g, (c) => ENTITY[c]!);
}

/** Markup made by `html` (or a constant of the renderer's own): written as it is. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** What `html` takes: text (escaped), numbers, markup it made, lists of these; nothing for absent values. */
export type HtmlValue = string | number | SafeHtml | readonly HtmlValue[] | undefined | null | false;

function valueHtml(v: HtmlValue): string {
  if (v === undefined || v === null || v === false) return "";
  if (v instanceof SafeHtml) return v.markup;
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return escapeHtml(v);
  return v.map(valueHtml).join("");
}

/** Markup from a template: the literal parts as written, every value escaped unless it is SafeHtml. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += valueHtml(v) + (strings[i + 1] ?? "");
  });
  return new SafeHtml(out);
}
