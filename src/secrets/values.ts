// The one holder of the values of a file's `${env:NAME}` references.
// Spec: docs/secrets.md.
import type { Env, SecretValues } from "../model/index.js";
import { MIN_SUBSTRING, Redactor, mapStrings } from "../redact.js";
import { RuntimeError } from "../errors.js";
import {
  escapeTemplateText,
  hasEnvReference,
  referenceOf,
  referencedNames,
  replaceTemplateTokens,
} from "../template.js";
import { getOwn, setOwn } from "../data-record.js";

function isIdKey(key: string): boolean {
  return key === "id" || key.endsWith("_id") || key === "ids";
}

interface Templatizer {
  /** `key\0text` → the unit's template under that key that reads as that text. */
  wholes: Map<string, string>;
  /** Each value's template-syntax spelling → its reference, longest first (MIN_SUBSTRING characters or more). */
  long: Array<readonly [string, string]>;
  matcher?: RegExp;
}

export class EnvSecrets implements SecretValues {
  readonly #values: ReadonlyMap<string, string>;
  readonly #scopes = new WeakMap<object, Templatizer>();
  #everything: Templatizer | undefined;
  #redactor: Redactor | undefined;

  /** `names`: the variables the desired state references, each set in `env`. */
  constructor(env: Env, names: Iterable<string>) {
    const values = new Map<string, string>();
    for (const name of [...new Set(names)].sort()) {
      const value = getOwn(env as Record<string, string | undefined>, name);
      if (value === undefined) throw new RuntimeError(`environment variable ${name} is not set`);
      values.set(name, value);
    }
    this.#values = values;
  }

  get names(): readonly string[] {
    return [...this.#values.keys()];
  }

  /** The names and values, in name order: for the binding's key derivation only (binding.ts). */
  static pairs(secrets: SecretValues): [string, string][] {
    return secrets instanceof EnvSecrets ? [...secrets.#values] : [];
  }

  #resolve(template: string, strict: boolean): string {
    return replaceTemplateTokens(template, (whole, inner) => {
      const ref = referenceOf(inner);
      const value = ref && this.#values.get(ref.name);
      if (ref && value !== undefined) return ref.json ? JSON.stringify(value).slice(1, -1) : value;
      if (strict && inner.startsWith("env:"))
        throw new RuntimeError(`a write refers to \${${inner}}, which the plan does not hold (a fault of zoneform's)`);
      return whole;
    });
  }

  #templatizer(scope: unknown): Templatizer {
    const key = scope !== null && typeof scope === "object" ? scope : undefined;
    const known = key ? this.#scopes.get(key) : this.#everything;
    if (known) return known;
    const t: Templatizer = { wholes: new Map(), long: [] };
    const names = new Set<string>(key ? [] : this.#values.keys());
    for (const { key: k, template } of templatesIn(scope)) {
      for (const name of referencedNames(template)) names.add(name);
      const text = `${k}\u0000${this.#resolve(template, false)}`;
      // The first of two templates reading alike under one key stands for both: they send the same text.
      if (!t.wholes.has(text)) t.wholes.set(text, template);
    }
    for (const name of names) {
      const value = this.#values.get(name);
      if (value !== undefined && value.length >= MIN_SUBSTRING)
        t.long.push([escapeTemplateText(value), `\${env:${name}}`]);
    }
    t.long.sort((a, b) => b[0].length - a[0].length);
    if (key) this.#scopes.set(key, t);
    else this.#everything = t;
    return t;
  }

  #templatizeString(t: Templatizer, live: string, key: string | undefined): string {
    const whole = key === undefined ? undefined : t.wholes.get(`${key}\u0000${live}`);
    if (whole !== undefined) return whole;
    const escaped = escapeTemplateText(live);
    if (t.long.length === 0) return escaped;
    t.matcher ??= new RegExp(t.long.map(([v]) => v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
    const out = escaped.replace(t.matcher, (found) => t.long.find(([v]) => v === found)![1]);
    // A replacement that would not read back as the live text is not made.
    return out === escaped || this.#resolve(out, false) === live ? out : escaped;
  }

  templatize<T>(live: T, scope?: unknown): T {
    const t = this.#templatizer(scope);
    return templatizeValue(live, (s, key) => this.#templatizeString(t, s, key)) as T;
  }

  resolveForWrite<T>(value: T): T {
    return mapStrings(value, (s) => this.#resolve(s, true)) as T;
  }

  redactor(): Redactor {
    this.#redactor ??= new Redactor([...this.#values.values()].map((value) => ({ value })));
    return this.#redactor;
  }

  /** Never the values: a holder logged or serialized shows only the names it holds. */
  toJSON(): { references: readonly string[] } {
    return { references: this.names };
  }
}

function* templatesIn(value: unknown, key?: string): Generator<{ key: string; template: string }> {
  if (typeof value === "string") {
    if (key !== undefined && hasEnvReference(value)) yield { key, template: value };
  } else if (Array.isArray(value)) {
    for (const v of value) yield* templatesIn(v, key);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) if (k !== "declared" && k !== "source") yield* templatesIn(v, k);
  }
}

export const NO_SECRETS: SecretValues = new EnvSecrets({}, []);

function templatizeValue(value: unknown, fn: (s: string, key?: string) => string, key?: string): unknown {
  if (typeof value === "string") return key !== undefined && isIdKey(key) ? value : fn(value, key);
  if (Array.isArray(value)) return value.map((v) => templatizeValue(v, fn, key));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, templatizeValue(v, fn, k));
    return out;
  }
  return value;
}

export function holdsReference(value: unknown): boolean {
  if (typeof value === "string") return hasEnvReference(value);
  if (Array.isArray(value)) return value.some(holdsReference);
  if (value && typeof value === "object") return Object.values(value).some(holdsReference);
  return false;
}
