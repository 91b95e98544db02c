// Logpush jobs as comparable values.
// Spec: docs/configuration.md, `logs.logpush_jobs`.
import { jsonTemplate } from "../../template.js";
import { isEmptyFilter, parseFilterString, serialiseFilter } from "./filter.js";
import { AnswerShapeError } from "../../errors.js";
import type { LogpushFilter } from "./types.js";
import { destinationCredentials } from "../../credential-shape.js";
import { clipJson, redactDestination, safeDecode, SENSITIVE } from "../../redact.js";

export interface LiveLogpushJob {
  id: string;
  /** `""` for a job answered with `name: null` (created without a name). */
  name: string;
  /** null when the API answered none. */
  dataset: string | null;
  destination_conf: string;
  enabled: boolean;
  kind: string;
  filter?: LogpushFilter;
  /** A filter string the API holds that is not valid JSON. */
  filter_unparsed?: string;
  /** The options the job holds (nulls dropped); absent when it holds none. */
  output_options?: Record<string, unknown>;
  /** The options came from the legacy `logpull_options` string, which the job holds instead. */
  legacy_logpull?: string;
  max_upload_bytes: number;
  max_upload_interval_seconds: number;
  max_upload_records: number;
  filter_attack_traffic: boolean;
}

/** The API's defaults for output_options (OpenAPI `logpush_output_options`), by output type. */
const NDJSON_DEFAULTS: Record<string, unknown> = {
  field_names: Object.freeze([]),
  output_type: "ndjson",
  timestamp_format: "unixnano",
  sample_rate: 1,
  "CVE-2021-44228": false,
  batch_prefix: "",
  batch_suffix: "",
  record_prefix: "{",
  record_suffix: "}\n",
  record_delimiter: "",
  field_delimiter: ",",
  record_template: "",
};

/** output_type csv changes the record framing: no braces, one line per record. */
const CSV_DEFAULTS: Record<string, unknown> = {
  ...NDJSON_DEFAULTS,
  output_type: "csv",
  record_prefix: "",
  record_suffix: "\n",
};

/** Filled only for comparison: sent only when the file sets it, since only http_requests knows it. */
const COMPARE_ONLY_DEFAULTS: Record<string, unknown> = { merge_subrequests: false };

/** The 2024 OpenAPI schema spells the Log4Shell option with a typo. */
const CVE_TYPO = "CVE-2021-4428";
const CVE_KEY = "CVE-2021-44228";

export function outputDefaults(outputType: unknown): Record<string, unknown> {
  return outputType === "csv" ? CSV_DEFAULTS : NDJSON_DEFAULTS;
}

/** comparableOutputOptions of each options object already compared: a job's are compared several times per plan. */
const comparable = new WeakMap<Record<string, unknown>, Readonly<Record<string, unknown>>>();

export function comparableOutputOptions(options: Record<string, unknown>): Readonly<Record<string, unknown>> {
  let out = comparable.get(options);
  if (!out) {
    const given = withoutNulls(fixCveKey(options));
    out = Object.freeze({ ...COMPARE_ONLY_DEFAULTS, ...outputDefaults(given.output_type), ...given });
    comparable.set(options, out);
  }
  return out;
}

function fixCveKey(options: Record<string, unknown>): Record<string, unknown> {
  if (!(CVE_TYPO in options)) return options;
  const { [CVE_TYPO]: typo, ...rest } = options;
  return CVE_KEY in rest ? rest : { ...rest, [CVE_KEY]: typo };
}

/** The options as a job holds them: nulls dropped, the Log4Shell key spelt right. */
export function heldOutputOptions(options: Record<string, unknown>): Record<string, unknown> {
  return withoutNulls(fixCveKey(options));
}

export function outputOptionsToSend(
  desired: Record<string, unknown>,
  live: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const out = heldOutputOptions(desired);
  const defaults = { ...COMPARE_ONLY_DEFAULTS, ...outputDefaults(out.output_type) };
  for (const [k, v] of Object.entries(heldOutputOptions(live ?? {}))) {
    if (k in out) continue;
    if (!(k in defaults)) out[k] = structuredClone(v);
    else if (JSON.stringify(v) !== JSON.stringify(defaults[k])) out[k] = structuredClone(defaults[k]);
  }
  return out;
}

/** The legacy `logpull_options` query string as the output_options it means (unknown parameters kept aside). */
export function outputOptionsFromLogpull(text: string): { options: Record<string, unknown>; unknown: string[] } {
  const options: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const pair of text.replace(/^\?/, "").split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const key = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? "" : safeDecode(pair.slice(eq + 1));
    if (key === "fields") options.field_names = value === "" ? [] : value.split(",");
    else if (key === "timestamps") options.timestamp_format = value;
    else if (key === "sample" && value !== "" && Number.isFinite(Number(value))) options.sample_rate = Number(value);
    else if (key === CVE_KEY) options[CVE_KEY] = value === "true";
    else unknown.push(key);
  }
  return { options, unknown };
}

const NO_OPTIONS: Record<string, unknown> = Object.freeze({});

function withoutNulls(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
}

/** The option keys whose values differ, in a stable order (defaults filled on both sides). */
export function diffOutputOptions(
  desired: Record<string, unknown>,
  live: Record<string, unknown> | undefined,
): string[] {
  const a = comparableOutputOptions(desired);
  const b = comparableOutputOptions(live ?? NO_OPTIONS);
  const keys = Object.keys(a);
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** filterToWire of each filter object already serialised (a job's filter is compared, then sent). */
const wire = new WeakMap<object, string | undefined>();

/** The filter as the API takes it: compact JSON, or undefined for "no filter". */
export function filterToWire(filter: LogpushFilter | undefined): string | undefined {
  if (filter === undefined) return undefined;
  // A reference in a value goes in JSON-escaped when the write is made.
  if (typeof filter !== "object" || filter === null)
    return isEmptyFilter(filter) ? undefined : jsonTemplate(serialiseFilter(filter));
  if (wire.has(filter)) return wire.get(filter);
  const out = isEmptyFilter(filter) ? undefined : jsonTemplate(serialiseFilter(filter));
  wire.set(filter, out);
  return out;
}

/** Parses the API's filter string; `unparsed` holds a string that is not JSON. */
export function filterFromWire(text: unknown): { filter?: LogpushFilter; unparsed?: string } {
  if (text === null || text === undefined) return {};
  if (typeof text === "object")
    return isEmptyFilter(text as LogpushFilter) ? {} : { filter: parseFilterString(JSON.stringify(text)) };
  const s = String(text);
  try {
    const filter = parseFilterString(s);
    return filter ? { filter } : {};
  } catch {
    return { unparsed: s };
  }
}

/** Equal by meaning: key order, whitespace and the spellings of "none" do not count. */
export function filtersEqual(a: LogpushFilter | undefined, b: LogpushFilter | undefined): boolean {
  return filterToWire(a) === filterToWire(b);
}

function shapeError(raw: Record<string, unknown>, field: string, expected: string): AnswerShapeError {
  const id = typeof raw.id === "number" || typeof raw.id === "string" ? ` ${raw.id}` : "";
  return new AnswerShapeError(
    `the API answered Logpush job${id} with ${field} ${clipJson(raw[field], 60) ?? "missing"}, expected ${expected}`,
  );
}

/** An upload limit: a non-negative integer, or absent/null (0, the service's default). */
function limit(raw: Record<string, unknown>, key: string): number {
  const v = raw[key];
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw shapeError(raw, key, "a whole number");
  return v;
}

/** Orders job ids (whole numbers as digits) by value without Number(), which rounds past 2^53. */
export function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, "");
  const y = b.replace(/^0+(?=\d)/, "");
  return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
}

export function normalizeLiveJob(input: unknown): LiveLogpushJob {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new AnswerShapeError(
      `the API answered a Logpush job that is not an object (${clipJson(input, 60)}), ` +
        "expected {id, name, dataset, …}",
    );
  }
  const raw = input as Record<string, unknown>;
  // A whole number; beyond 2^53 the client hands it over as its exact digits.
  const idOk =
    (typeof raw.id === "number" && Number.isSafeInteger(raw.id) && raw.id >= 0) ||
    (typeof raw.id === "string" && /^\d+$/.test(raw.id));
  if (!idOk) throw shapeError(raw, "id", "a job id (a whole number)");
  if (raw.name !== null && raw.name !== undefined && typeof raw.name !== "string")
    throw shapeError(raw, "name", "a string or null");
  if (typeof raw.dataset !== "string" && raw.dataset !== null && raw.dataset !== undefined)
    throw shapeError(raw, "dataset", "a string");
  if (typeof raw.destination_conf !== "string") throw shapeError(raw, "destination_conf", "a string");
  if (typeof raw.enabled !== "boolean") throw shapeError(raw, "enabled", "true or false");
  if (raw.kind !== undefined && raw.kind !== null && typeof raw.kind !== "string")
    throw shapeError(raw, "kind", "a string");
  if (raw.filter !== undefined && raw.filter !== null && typeof raw.filter !== "string")
    throw shapeError(raw, "filter", "a JSON string");
  const options = raw.output_options;
  if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
    throw shapeError(raw, "output_options", "an object");
  }
  if (raw.logpull_options !== undefined && raw.logpull_options !== null && typeof raw.logpull_options !== "string") {
    throw shapeError(raw, "logpull_options", "a string");
  }
  if (
    raw.filter_attack_traffic !== undefined &&
    raw.filter_attack_traffic !== null &&
    typeof raw.filter_attack_traffic !== "boolean"
  )
    throw shapeError(raw, "filter_attack_traffic", "true or false");
  const { filter, unparsed } = filterFromWire(raw.filter);
  const heldAll = options ? heldOutputOptions(options as Record<string, unknown>) : undefined;
  // A job may hold an empty output_options beside its legacy string.
  const held = heldAll && Object.keys(heldAll).length > 0 ? heldAll : undefined;
  const legacy =
    !held && typeof raw.logpull_options === "string" && raw.logpull_options !== "" ? raw.logpull_options : undefined;
  const shownOptions = held ?? (legacy !== undefined ? outputOptionsFromLogpull(legacy).options : undefined);
  return {
    id: String(raw.id),
    name: typeof raw.name === "string" ? raw.name : "",
    dataset: typeof raw.dataset === "string" ? raw.dataset : null,
    destination_conf: raw.destination_conf,
    enabled: raw.enabled,
    kind: typeof raw.kind === "string" ? raw.kind : "",
    ...(filter ? { filter } : {}),
    ...(unparsed !== undefined ? { filter_unparsed: unparsed } : {}),
    ...(shownOptions ? { output_options: shownOptions } : {}),
    ...(legacy !== undefined ? { legacy_logpull: legacy } : {}),
    max_upload_bytes: limit(raw, "max_upload_bytes"),
    max_upload_interval_seconds: limit(raw, "max_upload_interval_seconds"),
    max_upload_records: limit(raw, "max_upload_records"),
    filter_attack_traffic: raw.filter_attack_traffic === true,
  };
}

/** Storage destinations prove ownership. */
const CHALLENGE_SCHEMES = new Set(["s3", "gs", "azure"]);

export function destinationScheme(destination: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(destination);
  return m ? m[1]!.toLowerCase() : "";
}

export function needsOwnershipChallenge(destination: string): boolean {
  return CHALLENGE_SCHEMES.has(destinationScheme(destination));
}

/** The bucket (or container, or host) of a destination: what a reviewer needs to see. */
export function destinationBucket(destination: string): string {
  const rest = destination.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  return rest.split(/[/?]/)[0] ?? rest;
}

/** The destination as a command the user will copy shows it. */
export function stripDestinationSecrets(destination: string): string {
  let out = destination;
  // From the last to the first, so that each place found stays where it was.
  for (const c of destinationCredentials(destination).reverse()) {
    if (c.kind === "param") {
      const from = Math.max(out.lastIndexOf("&", c.start), out.lastIndexOf("?", c.start)) + 1;
      out = out.slice(0, from) + out.slice(c.end);
    } else if (c.kind === "path") out = out.slice(0, c.start) + SENSITIVE + out.slice(c.end);
    else out = out.slice(0, out.indexOf("://") + 3) + out.slice(c.end + 1);
  }
  const q = out.indexOf("?");
  if (q < 0) return out;
  const hash = out.indexOf("#", q);
  const end = hash < 0 ? out.length : hash;
  const kept = out
    .slice(q + 1, end)
    .split("&")
    .filter((pair) => pair !== "");
  return `${out.slice(0, q)}${kept.length > 0 ? `?${kept.join("&")}` : ""}${out.slice(end)}`;
}

export function destinationSecretValues(destination: string): string[] {
  const out = new Set<string>();
  for (const c of destinationCredentials(destination)) {
    const value = destination.slice(c.start, c.end);
    const colon = value.indexOf(":");
    const parts =
      c.kind === "userinfo" && colon >= 0 ? [value, value.slice(0, colon), value.slice(colon + 1)] : [value];
    for (const v of parts) {
      if (v.length < 3) continue;
      out.add(v);
      out.add(safeDecode(v));
    }
  }
  return [...out];
}

/** Scrubs a text (an API message) of a destination's credentials and of any URL's secret parameters. */
export function redactDestinationSecrets(text: string, destination: string, extra: string[] = []): string {
  let out = text;
  for (const v of [...destinationSecretValues(destination), ...extra]
    .filter((s) => s.length >= 3)
    .sort((a, b) => b.length - a.length)) {
    out = out.split(v).join("(sensitive)");
  }
  return out.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*\?[^\s"'<>]*/gi, (url) => redactDestination(url));
}

/** A filter as a reviewer reads it: `ClientRequestHost eq "example.com" and (… or …)`. */
export function describeFilter(filter: LogpushFilter | undefined): string | undefined {
  if (filter === undefined || isEmptyFilter(filter)) return undefined;
  const show = (node: unknown, nested: boolean): string => {
    const n = node as Record<string, unknown>;
    for (const op of ["and", "or"] as const) {
      if (Array.isArray(n[op])) {
        const text = (n[op] as unknown[]).map((c) => show(c, true)).join(` ${op} `);
        return nested && (n[op] as unknown[]).length > 1 ? `(${text})` : text;
      }
    }
    return `${String(n.key)} ${String(n.operator)} ${JSON.stringify(n.value)}`;
  };
  return show(filter.where, false);
}
