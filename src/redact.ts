// Keeps secrets out of every output: stdout, logs, errors and plan files. Two sources of secrets:
// values that came from `${env:NAME}`, and credentials that travel in a Logpush destination_conf's
// query string (keys, secrets, SAS tokens, https authorisation headers), which are recognised by name
// so that live values read from the API are hidden too.

export const SENSITIVE = "(sensitive)";

/** Query parameter names of destination_conf whose values are credentials. */
const SECRET_PARAM = /(secret|key|token|passw|pwd|sig$|^sig|sas|auth|credential|signature|^header_)/i;

export function isSecretParam(name: string): boolean {
  return SECRET_PARAM.test(name);
}

/**
 * Hides the credential parameters of a destination URL, keeping scheme, bucket, path and region
 * visible: `s3://logs/{DATE}?region=us-east-1&secret-access-key=(sensitive)`.
 */
export function redactDestination(destination: string): string {
  const q = destination.indexOf("?");
  if (q < 0) return destination;
  const head = destination.slice(0, q + 1);
  const parts = destination
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      if (eq < 0) return pair;
      const name = decodeURIComponentSafe(pair.slice(0, eq));
      return isSecretParam(name) ? `${pair.slice(0, eq)}=${SENSITIVE}` : pair;
    });
  return head + parts.join("&");
}

const URL_PARAM = /([?&])([^=&\s"'<>]+)=([^&\s"'<>]*)/g;

/** Hides secret query parameters in any text that contains URLs (error messages, log lines). */
export function redactUrlParams(text: string): string {
  if (!text.includes("=")) return text;
  return text.replace(URL_PARAM, (whole, sep: string, name: string, value: string) =>
    value && value !== SENSITIVE && !value.includes("${env:") && isSecretParam(decodeURIComponentSafe(name))
      ? `${sep}${name}=${SENSITIVE}`
      : whole,
  );
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Replaces known secret values inside any text or JSON-like value. */
export class Redactor {
  private readonly values: Array<{ value: string; replacement: string }>;

  /** `secrets`: value → what to show instead (default `(sensitive)`). Very short values are ignored. */
  constructor(secrets: Iterable<{ value: string; replacement?: string }> = []) {
    this.values = [];
    for (const s of secrets) this.add(s.value, s.replacement);
  }

  add(value: string, replacement: string = SENSITIVE): void {
    // A one- or two-character value would blank out unrelated text; such a value is no credential.
    if (value.length < 3 || this.values.some((v) => v.value === value)) return;
    this.values.push({ value, replacement });
    // Longest first, so a secret that contains another is replaced whole.
    this.values.sort((a, b) => b.value.length - a.value.length);
    for (const encoded of [encodeURIComponent(value)]) {
      if (encoded !== value && !this.values.some((v) => v.value === encoded)) {
        this.values.push({ value: encoded, replacement });
      }
    }
  }

  get size(): number {
    return this.values.length;
  }

  /** Known values first (so env values become their references in plan files), then URL parameters. */
  redact(text: string): string {
    let out = text;
    for (const { value, replacement } of this.values) {
      if (out.includes(value)) out = out.split(value).join(replacement);
    }
    return redactUrlParams(out);
  }

  /** A deep copy of `value` with every string redacted. */
  redactDeep<T>(value: T): T {
    return mapStrings(value, (s) => this.redact(s)) as T;
  }
}

export function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapStrings(v, fn);
    return out;
  }
  return value;
}
