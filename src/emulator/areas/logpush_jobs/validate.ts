// Validation of Logpush job bodies.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import { LOGPUSH_CODE } from "./destination.js";
import { ApiFault, type ApiErrorBody } from "../../types.js";
import { isObject } from "../../validate.js";

const TIMESTAMP_FORMATS = ["unixnano", "unix", "rfc3339", "rfc3339ms", "rfc3339ns"] as const;
const CVE_KEY = "CVE-2021-44228";
/** The 2024 schema's misspelling of CVE_KEY, still accepted on input. */
const CVE_KEY_TYPO = "CVE-2021-4428";

const STRING_OPTIONS = [
  "batch_prefix",
  "batch_suffix",
  "record_prefix",
  "record_suffix",
  "record_template",
  "record_delimiter",
  "field_delimiter",
] as const;

/** Bounds of the max_upload_* fields: 0 disables, else within [min, max]. */
const UPLOAD_BOUNDS: Record<string, [number, number]> = {
  max_upload_bytes: [5_000_000, 1_000_000_000],
  max_upload_interval_seconds: [30, 300],
  max_upload_records: [1_000, 1_000_000],
};

const NAME_PATTERN = /^[a-zA-Z0-9\-.]*$/;

/**
 * Returns output_options as they will be stored (the options set, none added), or null; collects problems into
 * `errors`.
 */
export function normalizeOutputOptions(
  raw: unknown,
  dataset: string,
  fields: readonly string[] | undefined,
  errors: ApiErrorBody[],
): Record<string, unknown> | null {
  if (raw === null) return null;
  if (!isObject(raw)) {
    errors.push(fault("/output_options", "output_options must be an object"));
    return null;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const ptr = `/output_options/${key}`;
    if (value === null) continue;
    if (key === "output_type") {
      if (value !== "ndjson" && value !== "csv")
        errors.push(fault(ptr, `output_type must be ndjson or csv, got ${JSON.stringify(value)}`));
      else out.output_type = value;
    } else if (key === "field_names") {
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
        errors.push(fault(ptr, "field_names must be an array of strings"));
      else {
        const unknown = fields ? value.filter((v) => !fields.includes(v)) : [];
        if (unknown.length > 0)
          errors.push(
            fault(
              ptr,
              `unknown field(s) for dataset ${dataset}: ${unknown.join(", ")} (GET ` +
                `logpush/datasets/${dataset}/fields lists them)`,
            ),
          );
        out.field_names = value;
      }
    } else if (key === "timestamp_format") {
      if (!(TIMESTAMP_FORMATS as readonly unknown[]).includes(value))
        errors.push(fault(ptr, `timestamp_format must be one of ${TIMESTAMP_FORMATS.join(", ")}`));
      else out.timestamp_format = value;
    } else if (key === "sample_rate") {
      if (typeof value !== "number" || value < 0 || value > 1)
        errors.push(fault(ptr, "sample_rate must be a number from 0 to 1"));
      else out.sample_rate = value;
    } else if (key === CVE_KEY || key === CVE_KEY_TYPO || key === "merge_subrequests") {
      if (typeof value !== "boolean") errors.push(fault(ptr, `${key} must be a boolean`));
      else if (key === "merge_subrequests" && value && dataset !== "http_requests")
        errors.push(fault(ptr, "merge_subrequests is only available for the http_requests dataset"));
      else out[key === CVE_KEY_TYPO ? CVE_KEY : key] = value;
    } else if ((STRING_OPTIONS as readonly string[]).includes(key)) {
      if (typeof value !== "string") errors.push(fault(ptr, `${key} must be a string`));
      else out[key] = value;
    } else {
      errors.push(fault(ptr, `unknown output_options field ${key}`));
    }
  }
  return out;
}

export function checkJobScalars(body: Record<string, unknown>, errors: ApiErrorBody[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if ("name" in body) {
    const v = body.name;
    if (v !== null && (typeof v !== "string" || v.length > 512 || !NAME_PATTERN.test(v))) {
      errors.push(fault("/name", "name may hold only letters, digits, '-' and '.', at most 512 characters"));
    } else out.name = v;
  }
  if ("enabled" in body) {
    if (typeof body.enabled !== "boolean") errors.push(fault("/enabled", "enabled must be a boolean"));
    else out.enabled = body.enabled;
  }
  for (const [key, [min, max]] of Object.entries(UPLOAD_BOUNDS)) {
    if (!(key in body)) continue;
    const v = body[key];
    if (v !== null && (!Number.isInteger(v) || (v !== 0 && ((v as number) < min || (v as number) > max)))) {
      errors.push(fault(`/${key}`, `${key} must be 0 (disabled) or an integer from ${min} to ${max}`));
    } else out[key] = v;
  }
  if ("filter_attack_traffic" in body) {
    if (typeof body.filter_attack_traffic !== "boolean")
      errors.push(fault("/filter_attack_traffic", "filter_attack_traffic must be a boolean"));
    else out.filter_attack_traffic = body.filter_attack_traffic;
  }
  if ("frequency" in body) {
    if (body.frequency !== null && body.frequency !== "high" && body.frequency !== "low")
      errors.push(fault("/frequency", "frequency (deprecated) must be high or low"));
    else out.frequency = body.frequency;
  }
  if ("logpull_options" in body) {
    const v = body.logpull_options;
    if (v !== null && (typeof v !== "string" || v.length > 4096))
      errors.push(
        fault("/logpull_options", "logpull_options (deprecated) must be a string of at most 4096 characters"),
      );
    else out.logpull_options = v;
  }
  return out;
}

/** The datasets `filter_attack_traffic` applies to. */
const ATTACK_TRAFFIC_DATASETS: readonly string[] = ["http_requests", "firewall_events", "network_analytics_logs"];

export function checkAttackTraffic(value: unknown, dataset: string, errors: ApiErrorBody[]): void {
  if (value === true && !ATTACK_TRAFFIC_DATASETS.includes(dataset)) {
    errors.push(
      fault(
        "/filter_attack_traffic",
        `filter_attack_traffic is supported only for the ${ATTACK_TRAFFIC_DATASETS.join(", ")} datasets`,
      ),
    );
  }
}

export function fault(pointer: string, message: string): ApiErrorBody {
  return { code: LOGPUSH_CODE.invalid, message, source: { pointer } };
}

export function throwIfAny(errors: ApiErrorBody[]): void {
  if (errors.length > 0) throw new ApiFault(400, errors);
}
