// The one HTML escaper.
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

export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

export type HtmlValue = string | number | SafeHtml | readonly HtmlValue[] | undefined | null | false;

function valueHtml(v: HtmlValue): string {
  if (v === undefined || v === null || v === false) return "";
  if (v instanceof SafeHtml) return v.markup;
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return escapeHtml(v);
  return v.map(valueHtml).join("");
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += valueHtml(v) + (strings[i + 1] ?? "");
  });
  return new SafeHtml(out);
}
