// Logpush jobs as comparable values. Pure: turns a job read from the API into the shape of the file,
// so that spellings the API and the file disagree on never show as a change: a filter is compared by
// meaning (parsed, keys in one order, `{"where":{}}` / null / "" all mean none), output_options after
// filling the defaults the API fills in, absent upload limits as 0. Also knows which destinations
// need an ownership challenge and how to show a destination without its credentials.
import { isEmptyFilter, parseFilterString, serialiseFilter } from "../config/filter.js";
import type { DesiredLogpushJob, LogpushFilter } from "../model/desired.js";
import { isSecretParam, redactDestination } from "../redact.js";

/** A live job in the file's shape, plus its id; the filter as an object (absent = none). */
export interface LiveLogpushJob {
  id: string;
  name: string;
  dataset: string;
  destination_conf: string;
  enabled: boolean;
  kind: "" | "edge";
  filter?: LogpushFilter;
  /** A filter string the API holds that is not valid JSON: never equal to anything in the file. */
  filter_unparsed?: string;
  /** Complete (defaults filled); absent when the API returned none. */
  output_options?: Record<string, unknown>;
  max_upload_bytes: number;
  max_upload_interval_seconds: number;
  max_upload_records: number;
}

/** The API's defaults for output_options (OpenAPI `logpush_output_options`), by output type. */
const NDJSON_DEFAULTS: Record<string, unknown> = {
  field_names: [],
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
const CSV_DEFAULTS: Record<string, unknown> = { ...NDJSON_DEFAULTS, output_type: "csv", record_prefix: "", record_suffix: "\n" };

/** Filled only for comparison: sent only when the file sets it, since only http_requests knows it. */
const COMPARE_ONLY_DEFAULTS: Record<string, unknown> = { merge_subrequests: false };

/** The 2024 OpenAPI schema spells the Log4Shell option with a typo; read both, write the real one. */
const CVE_TYPO = "CVE-2021-4428";
const CVE_KEY = "CVE-2021-44228";

export function outputDefaults(outputType: unknown): Record<string, unknown> {
  return outputType === "csv" ? CSV_DEFAULTS : NDJSON_DEFAULTS;
}

/**
 * The complete output_options to send: the file's (or the live job's) values over the API defaults,
 * because a PUT resets every option it omits. Nulls count as "default".
 */
export function completeOutputOptions(options: Record<string, unknown>): Record<string, unknown> {
  const given = withoutNulls(fixCveKey(options));
  return structuredClone({ ...outputDefaults(given.output_type), ...given });
}

/** The form output_options are compared in: complete, including the options filled only for comparison. */
export function comparableOutputOptions(options: Record<string, unknown>): Record<string, unknown> {
  return { ...COMPARE_ONLY_DEFAULTS, ...completeOutputOptions(options) };
}

function fixCveKey(options: Record<string, unknown>): Record<string, unknown> {
  if (!(CVE_TYPO in options)) return options;
  const { [CVE_TYPO]: typo, ...rest } = options;
  return CVE_KEY in rest ? rest : { ...rest, [CVE_KEY]: typo };
}

function withoutNulls(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
}

/** The option keys whose values differ, in a stable order (defaults filled on both sides). */
export function diffOutputOptions(desired: Record<string, unknown>, live: Record<string, unknown> | undefined): string[] {
  const a = comparableOutputOptions(desired);
  const b = comparableOutputOptions(live ?? {});
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** The filter as the API takes it: compact JSON, or undefined for "no filter". */
export function filterToWire(filter: LogpushFilter | undefined): string | undefined {
  return filter === undefined || isEmptyFilter(filter) ? undefined : serialiseFilter(filter);
}

/** Parses the API's filter string; `unparsed` holds a string that is not JSON. */
export function filterFromWire(text: unknown): { filter?: LogpushFilter; unparsed?: string } {
  if (text === null || text === undefined) return {};
  if (typeof text === "object") return isEmptyFilter(text as LogpushFilter) ? {} : { filter: parseFilterString(JSON.stringify(text)) };
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

function toInt(v: unknown): number {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : 0;
  return Number.isFinite(n) ? n : 0;
}

export function normaliseLiveJob(raw: Record<string, unknown>): LiveLogpushJob {
  const { filter, unparsed } = filterFromWire(raw.filter);
  const options = raw.output_options;
  return {
    id: String(raw.id),
    name: String(raw.name ?? ""),
    dataset: String(raw.dataset ?? ""),
    destination_conf: String(raw.destination_conf ?? ""),
    enabled: raw.enabled === true || raw.enabled === "true",
    kind: raw.kind === "edge" ? "edge" : "",
    ...(filter ? { filter } : {}),
    ...(unparsed !== undefined ? { filter_unparsed: unparsed } : {}),
    ...(options && typeof options === "object" ? { output_options: completeOutputOptions(options as Record<string, unknown>) } : {}),
    max_upload_bytes: toInt(raw.max_upload_bytes),
    max_upload_interval_seconds: toInt(raw.max_upload_interval_seconds),
    max_upload_records: toInt(raw.max_upload_records),
  };
}

/**
 * Storage destinations prove ownership: Cloudflare writes a token into the bucket (S3, Google Cloud
 * Storage) or container (Azure Blob Storage) and the job must quote it. R2 and the HTTP-based
 * destinations (https, Datadog, Splunk, Sumo Logic) authenticate with credentials in the URL instead.
 */
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

/** The destination with its credential parameters removed (for a command the user will copy). */
export function stripDestinationSecrets(destination: string): string {
  const q = destination.indexOf("?");
  if (q < 0) return destination;
  const kept = destination
    .slice(q + 1)
    .split("&")
    .filter((pair) => pair !== "" && !isSecretParam(safeDecode(pair.split("=")[0] ?? "")));
  return kept.length > 0 ? `${destination.slice(0, q)}?${kept.join("&")}` : destination.slice(0, q);
}

/** The values of a destination's credential parameters (raw and decoded), to scrub from API messages. */
export function destinationSecretValues(destination: string): string[] {
  const q = destination.indexOf("?");
  if (q < 0) return [];
  const out = new Set<string>();
  for (const pair of destination.slice(q + 1).split("&")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || !isSecretParam(safeDecode(pair.slice(0, eq)))) continue;
    const value = pair.slice(eq + 1);
    if (value.length < 3) continue;
    out.add(value);
    out.add(safeDecode(value));
  }
  return [...out];
}

/** Scrubs a text (an API message) of a destination's credentials and of any URL's secret parameters. */
export function redactDestinationSecrets(text: string, destination: string, extra: string[] = []): string {
  let out = text;
  for (const v of [...destinationSecretValues(destination), ...extra].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length)) {
    out = out.split(v).join("(sensitive)");
  }
  return out.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*\?[^\s"'<>]*/gi, (url) => redactDestination(url));
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * A filter as a reviewer reads it, e.g. `ClientRequestHost eq "example.com" and (ClientRequestPath
 * contains "/api" or EdgeResponseStatus geq 500)`: a word diff of it shows exactly what changed,
 * where the compact JSON is one long word.
 */
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
