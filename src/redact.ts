// Keeps secrets out of every output: stdout, logs, errors and plan files, and nothing else. The
// secrets: the API token and key, values that came from `${env:NAME}`, and credentials that travel in
// a Logpush destination_conf (query parameters recognised by name, such as keys, SAS signatures and
// authorisation headers, and any query value or path segment that looks like a generated token, such
// as a Sumo Logic source path), so that live values read from the API are hidden too. A short value
// (under 6 characters, such as `true`) is hidden only where a whole string equals it: hidden inside
// any text it would blank out unrelated words and ids.
//
// Redaction comes before truncation: a text is cut for display only with `clip`, after it was
// redacted whole, and its cut is marked with `…`. As a second guard, `redact` also hides a piece of
// 6 characters or more of a secret that a cut left just before (or just after) a `…`.

import { setOwn } from "./data-record.js";

export const SENSITIVE = "(sensitive)";

/** Query parameter names of destination_conf whose values are credentials. */
const SECRET_PARAM = /(secret|key|token|passw|pwd|sig$|^sig|sas|auth|credential|signature|^header_)/i;

export function isSecretParam(name: string): boolean {
  return SECRET_PARAM.test(name);
}

/**
 * A value that looks like a generated credential: 16 or more characters of a token alphabet with
 * upper case, lower case and digits all present (base64-like). Bucket names, regions, hex account
 * ids and dates do not qualify.
 */
export function isSecretValue(value: string): boolean {
  const v = safeDecode(value);
  return v.length >= 16 && /^[A-Za-z0-9+/=_.~-]+$/.test(v) && /[A-Z]/.test(v) && /[a-z]/.test(v) && /[0-9]/.test(v);
}

/**
 * Hides the credential parameters of a destination URL, keeping scheme, bucket, path and region
 * visible: `s3://logs/{DATE}?region=us-east-1&secret-access-key=(sensitive)`.
 */
export function redactDestination(destination: string): string {
  const q = destination.indexOf("?");
  const head = q < 0 ? destination : destination.slice(0, q);
  const shownHead = redactPathSecrets(head);
  if (q < 0) return shownHead;
  const parts = destination
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      if (eq < 0) return pair;
      const name = safeDecode(pair.slice(0, eq));
      const value = pair.slice(eq + 1);
      return (isSecretParam(name) || isSecretValue(value)) && !value.includes("${env:")
        ? `${pair.slice(0, eq)}=${SENSITIVE}`
        : pair;
    });
  return `${shownHead}?${parts.join("&")}`;
}

/** `scheme://host/a/<token>/b` with each path segment that looks like a credential hidden. */
export function redactPathSecrets(head: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/]*)(\/.*)?$/i.exec(head);
  if (!m?.[2]) return head;
  return (
    m[1] +
    m[2]
      .split("/")
      .map((seg) => (isSecretValue(seg) ? SENSITIVE : seg))
      .join("/")
  );
}

const URL_PARAM = /([?&])([^=&\s"'<>]+)=([^&\s"'<>]*)/g;

/** Hides secret query parameters in any text that contains URLs (error messages, log lines). */
export function redactUrlParams(text: string): string {
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
export const ELLIPSIS = "…";

/**
 * The text cut to at most `max` characters, its end marked `…`. Give it text that is already redacted
 * (`redactor.redact(whole)`, then `clip`): a secret cut in two is no longer a secret `redact` knows.
 */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}${ELLIPSIS}`;
}

export class Redactor {
  /** Value (and its URL-encoded form) → what to show instead; the first replacement given wins. */
  private readonly values = new Map<string, string>();
  private readonly whole = new Map<string, string>();
  /**
   * Every value in one alternation, longest first (so a secret that contains another is replaced
   * whole), and the set of their first MIN_SUBSTRING characters: a text none of whose substrings of
   * that length is in the set holds no value, and is passed over without running the alternation, at
   * a cost that does not grow with the number of secrets. Built when first needed after a change;
   * null when there is no value.
   */
  private matcher: { re: RegExp; prefixes: Set<string> } | null | undefined = null;

  /** `secrets`: value → what to show instead (default `(sensitive)`). Very short values are ignored. */
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
    for (const v of [value, encodeURIComponent(value)]) {
      if (this.values.has(v)) continue;
      this.values.set(v, replacement);
      this.matcher = undefined;
    }
  }

  /** Hides a string only where a whole string equals it, showing `replacement` instead. */
  addWhole(value: string, replacement: string): void {
    if (value !== "" && !this.whole.has(value)) this.whole.set(value, replacement);
  }

  get size(): number {
    return this.values.size + this.whole.size;
  }

  /** Known values first (so env values become their references in plan files), then URL parameters. */
  redact(text: string): string {
    const m = this.matcher === undefined ? this.compile() : this.matcher;
    const out =
      m && mayHold(text, m.prefixes) ? text.replace(m.re, (found) => this.values.get(found) ?? SENSITIVE) : text;
    return redactUrlParams(m && out.includes(ELLIPSIS) ? this.hideCutPieces(out) : out);
  }

  /**
   * A text cut before it was redacted holds a secret's start just before `…` (or its end just after):
   * each such piece of MIN_SUBSTRING characters or more is shown as `(sensitive)`.
   */
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
    const values = [...this.values.keys()].sort((a, b) => b.length - a.length);
    this.matcher =
      values.length === 0
        ? null
        : {
            re: new RegExp(values.map(escapeRegExp).join("|"), "g"),
            prefixes: new Set(values.map((v) => v.slice(0, MIN_SUBSTRING))),
          };
    return this.matcher;
  }

  /** One whole string (a value, a name): as `redact`, and also when it equals a short or templated secret. */
  redactString(s: string): string {
    return this.whole.get(s) ?? this.redact(s);
  }

  /** A deep copy of `value` with every string redacted (see redactString). */
  redactDeep<T>(value: T): T {
    return mapStrings(value, (s) => this.redactString(s)) as T;
  }
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
