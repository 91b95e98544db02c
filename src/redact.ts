// Keeps secrets out of every output: stdout, logs, errors and plan files, and nothing else.

import { destinationCredentials, isCredentialParam, isTokenValue } from "./credential-shape.js";
import { setOwn } from "./data-record.js";

export const SENSITIVE = "(sensitive)";

/** Query parameter names of destination_conf whose values are credentials (see isCredentialParam). */
export function isSecretParam(name: string): boolean {
  return isCredentialParam(name);
}

export function isSecretValue(value: string): boolean {
  return isTokenValue(safeDecode(value));
}

export function redactDestination(destination: string): string {
  let out = "";
  let from = 0;
  for (const part of destinationCredentials(destination)) {
    const value = destination.slice(part.start, part.end);
    if (value.includes("${env:") || value === SENSITIVE) continue;
    out += destination.slice(from, part.start) + SENSITIVE;
    from = part.end;
  }
  return out + destination.slice(from);
}

const URL_PARAM = /([?&])([^=&\s"'<>]+)=([^&\s"'<>]*)/g;

const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"'<>]+)@/gi;

export function redactUrlParams(text: string): string {
  if (text.includes("@") && text.includes("://"))
    text = text.replace(URL_USERINFO, (whole, scheme: string, userinfo: string) =>
      userinfo.includes("${env:") || userinfo === SENSITIVE ? whole : `${scheme}${SENSITIVE}@`,
    );
  if (!text.includes("=")) return text;
  return text.replace(URL_PARAM, (whole, sep: string, name: string, value: string) =>
    value &&
    value !== SENSITIVE &&
    !value.includes("${env:") &&
    (isSecretParam(safeDecode(name)) || isSecretValue(value))
      ? `${sep}${name}=${SENSITIVE}`
      : whole,
  );
}

/** `decodeURIComponent`, or the text as it is when it is not valid percent-encoding. */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Shorter secret values are matched only as whole strings. */
export const MIN_SUBSTRING = 6;

/** A value's JSON cut to `max` characters (see clip); undefined for undefined. */
export function clipJson(value: unknown, max: number): string | undefined {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? undefined : clip(text, max);
}

/** What marks a cut. */
const ELLIPSIS = "…";

/** The text cut to at most `max` characters, its end marked `…`. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}${ELLIPSIS}`;
}

export class Redactor {
  private readonly values = new Map<string, string>();
  private readonly escaped = new Set<string>();
  /** A value with every escape decoded (see unescapeAll) → what to show instead. */
  private readonly canonical = new Map<string, string>();
  private readonly whole = new Map<string, string>();
  private matcher: { re: RegExp; prefixes: Set<string> } | null | undefined = null;
  private canonicalMatcher: { re: RegExp; prefixes: Set<string> } | null | undefined = null;

  /** `secrets`: value → what to show instead (default `(sensitive)`). */
  constructor(secrets: Iterable<{ value: string; replacement?: string }> = []) {
    for (const s of secrets) this.add(s.value, s.replacement);
  }

  add(value: string, replacement: string = SENSITIVE): void {
    if (value === "") return;
    if (value.length < MIN_SUBSTRING) {
      // Hidden where a whole string is this value, never inside other text.
      if (!this.whole.has(value)) this.whole.set(value, replacement);
      return;
    }
    const plain = new Set([value, encodeURIComponent(value)]);
    for (const v of encodedForms(value)) {
      if (!plain.has(v)) this.escaped.add(v);
      if (this.values.has(v)) continue;
      this.values.set(v, replacement);
      this.matcher = undefined;
    }
    const decoded = unescapeAll(value).text;
    if (decoded.length >= MIN_SUBSTRING && !this.canonical.has(decoded)) {
      this.canonical.set(decoded, replacement);
      this.canonicalMatcher = undefined;
    }
  }

  /** Hides a string only where a whole string equals it, showing `replacement` instead. */
  addWhole(value: string, replacement: string): void {
    if (value !== "" && !this.whole.has(value)) this.whole.set(value, replacement);
  }

  get size(): number {
    return this.values.size + this.whole.size;
  }

  redact(text: string): string {
    const m = this.matcher === undefined ? this.compile() : this.matcher;
    let out =
      m && mayHold(text, m.prefixes) ? text.replace(m.re, (found) => this.values.get(found) ?? SENSITIVE) : text;
    if (m && /[\\%]/.test(out)) out = this.redactDecoded(out);
    return redactUrlParams(m && out.includes(ELLIPSIS) ? this.hideCutPieces(out) : out);
  }

  escapedSecretIn(text: string): string | undefined {
    for (const v of this.escaped) if (text.includes(v)) return this.values.get(v);
    if (!text.includes("\\") || this.canonical.size === 0) return undefined;
    const found = this.decodedMatches(text).find((span) => text.slice(span.from, span.to).includes("\\"));
    return found?.replacement;
  }

  valueIn(text: string): boolean {
    for (const v of this.values.keys()) if (text.includes(v)) return true;
    return this.escapedSecretIn(text) !== undefined;
  }

  private decodedMatches(text: string): Array<{ from: number; to: number; replacement: string }> {
    const m = this.canonicalMatcher === undefined ? this.compileCanonical() : this.canonicalMatcher;
    if (!m) return [];
    const decoded = unescapeAll(text).text;
    // Where each decoded character came from is worked out only for a text that holds a value.
    if (decoded === text || !mayHold(decoded, m.prefixes) || !m.re.test(decoded)) return [];
    m.re.lastIndex = 0;
    const { at } = unescapeAll(text, true);
    const spans: Array<{ from: number; to: number; replacement: string }> = [];
    for (const found of decoded.matchAll(m.re)) {
      const from = at[found.index]!;
      const to = at[found.index + found[0].length]!;
      spans.push({ from, to, replacement: this.canonical.get(found[0]) ?? SENSITIVE });
    }
    return spans;
  }

  private redactDecoded(text: string): string {
    const spans = this.decodedMatches(text);
    if (spans.length === 0) return text;
    let out = "";
    let from = 0;
    for (const span of spans) {
      out += text.slice(from, span.from) + span.replacement;
      from = span.to;
    }
    return out + text.slice(from);
  }

  private hideCutPieces(text: string): string {
    const values = [...this.values.keys()];
    let out = "";
    let from = 0;
    for (let i = text.indexOf(ELLIPSIS); i >= 0; i = text.indexOf(ELLIPSIS, i + 1)) {
      let cutFrom = i;
      for (const v of values) {
        for (let k = Math.min(v.length - 1, i - from); k >= MIN_SUBSTRING; k--) {
          if (i - k < cutFrom && text.startsWith(v.slice(0, k), i - k)) {
            cutFrom = i - k;
            break;
          }
        }
      }
      let cutTo = i + ELLIPSIS.length;
      for (const v of values) {
        for (let k = Math.min(v.length - 1, text.length - i - ELLIPSIS.length); k >= MIN_SUBSTRING; k--) {
          if (i + ELLIPSIS.length + k > cutTo && text.startsWith(v.slice(v.length - k), i + ELLIPSIS.length)) {
            cutTo = i + ELLIPSIS.length + k;
            break;
          }
        }
      }
      out +=
        `${text.slice(from, cutFrom)}${cutFrom < i ? SENSITIVE : ""}${ELLIPSIS}` +
        `${cutTo > i + ELLIPSIS.length ? SENSITIVE : ""}`;
      from = cutTo;
      i = cutTo - 1;
    }
    return out + text.slice(from);
  }

  private compile(): { re: RegExp; prefixes: Set<string> } | null {
    this.matcher = matcherOf([...this.values.keys()]);
    return this.matcher;
  }

  private compileCanonical(): { re: RegExp; prefixes: Set<string> } | null {
    this.canonicalMatcher = matcherOf([...this.canonical.keys()]);
    return this.canonicalMatcher;
  }

  redactString(s: string): string {
    return this.whole.get(s) ?? this.redact(s);
  }

  /** A deep copy of `value` with every string redacted (see redactString). */
  redactDeep<T>(value: T): T {
    return mapStrings(value, (s) => this.redactString(s)) as T;
  }
}

/** One alternation of `values`, longest first, and their prefixes (see Redactor.matcher); null for none. */
function matcherOf(values: string[]): { re: RegExp; prefixes: Set<string> } | null {
  if (values.length === 0) return null;
  values.sort((a, b) => b.length - a.length);
  return {
    re: new RegExp(values.map(escapeRegExp).join("|"), "g"),
    prefixes: new Set(values.map((v) => v.slice(0, MIN_SUBSTRING))),
  };
}

/** JSON's escaping of a string's content (JSON.stringify without the quotes). */
function jsonEscaped(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

function encodedForms(value: string): string[] {
  const out = new Set<string>();
  let v = value;
  for (let depth = 0; depth < 4; depth++) {
    out.add(v);
    out.add(encodeURIComponent(v));
    out.add(new URLSearchParams({ v }).toString().slice(2));
    v = jsonEscaped(v);
  }
  return [...out];
}

const JSON_SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

function unescapeOnce(text: string, map: boolean): { text: string; at: number[] } {
  let out = "";
  const at: number[] = [];
  let i = 0;
  while (i < text.length) {
    // Ordinary characters are copied in one piece.
    let plainEnd = i;
    while (plainEnd < text.length && text[plainEnd] !== "\\" && text[plainEnd] !== "%") plainEnd++;
    if (plainEnd > i) {
      out += text.slice(i, plainEnd);
      if (map) for (let k = i; k < plainEnd; k++) at.push(k);
      i = plainEnd;
      if (i >= text.length) break;
    }
    const start = i;
    let decoded: string;
    if (text[i] === "\\") {
      let j = i;
      while (text[j] === "\\") j++;
      const next = text[j];
      if (next === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(j + 1, j + 5))) {
        decoded = String.fromCharCode(Number.parseInt(text.slice(j + 1, j + 5), 16));
        i = j + 5;
      } else if (next !== undefined && Object.hasOwn(JSON_SHORT_ESCAPES, next)) {
        decoded = JSON_SHORT_ESCAPES[next]!;
        i = j + 1;
      } else {
        decoded = "\\";
        i = j;
      }
    } else {
      const run = percentRun(text, i);
      decoded = run ? run.chars : "%";
      i += run ? run.length : 1;
    }
    out += decoded;
    // A character beyond U+FFFF is two UTF-16 units: both start where its encoding starts.
    if (map) for (let k = 0; k < decoded.length; k++) at.push(start);
  }
  if (map) at.push(text.length);
  return { text: out, at };
}

const UTF8 = new TextDecoder("utf-8", { fatal: false });

function percentRun(text: string, i: number): { chars: string; length: number } | undefined {
  const byte = (k: number) =>
    /^%[0-9a-fA-F]{2}$/.test(text.slice(k, k + 3)) ? Number.parseInt(text.slice(k + 1, k + 3), 16) : -1;
  const lead = byte(i);
  if (lead < 0) return undefined;
  if (lead < 0x80) return { chars: String.fromCharCode(lead), length: 3 };
  const n = lead >= 0xf0 && lead < 0xf5 ? 4 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 0;
  if (n === 0) return undefined;
  const bytes = [lead];
  for (let k = 1; k < n; k++) {
    const b = byte(i + 3 * k);
    if (b < 0x80 || b > 0xbf) return undefined;
    bytes.push(b);
  }
  const chars = UTF8.decode(new Uint8Array(bytes));
  return chars.includes("\ufffd") ? undefined : { chars, length: 3 * n };
}

function unescapeAll(text: string, map = false): { text: string; at: number[] } {
  let current = unescapeOnce(text, map);
  for (let pass = 1; pass < 4 && current.text !== text && /[\\%]/.test(current.text); pass++) {
    const next = unescapeOnce(current.text, map);
    if (next.text === current.text) break;
    current = { text: next.text, at: map ? next.at.map((k) => current.at[k]!) : [] };
  }
  return current;
}

/** Whether some substring of `text` of MIN_SUBSTRING characters starts a value (see Redactor.matcher). */
function mayHold(text: string, prefixes: Set<string>): boolean {
  for (let i = 0; i + MIN_SUBSTRING <= text.length; i++)
    if (prefixes.has(text.slice(i, i + MIN_SUBSTRING))) return true;
  return false;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, mapStrings(v, fn));
    return out;
  }
  return value;
}
