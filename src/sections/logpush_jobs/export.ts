// Logpush jobs, read with the logpush kind's own `read` and written in the file's shape.
// Spec: docs/configuration.md, `logs.logpush_jobs`.
import { accountLogpushJobs, logpushJobs } from "./logpush-jobs.js";
import { outputDefaults, outputOptionsFromLogpull, type LiveLogpushJob } from "./live.js";
import { destinationCredentials } from "../../credential-shape.js";
import { FileText, type ExportNotes, type SectionContext } from "../export-context.js";
import { escapeTemplateText as escapeTemplates } from "../../template.js";

const NAME = /^[a-zA-Z0-9.-]{1,512}$/;
const DATASET = /^[a-z0-9_]+$/;
const DESTINATION = /^(r2|gs|s3|sumo|https|azure|splunk|datadog):\/\/\S+$/;
/** The output options the file format knows (schemas/zoneform.schema.json outputOptions). */
const OPTION_KEYS = new Set([
  "field_names",
  "output_type",
  "timestamp_format",
  "sample_rate",
  "CVE-2021-44228",
  "batch_prefix",
  "batch_suffix",
  "record_prefix",
  "record_suffix",
  "record_delimiter",
  "field_delimiter",
  "record_template",
  "merge_subrequests",
]);
const COMPARE_ONLY_DEFAULTS: Record<string, unknown> = { merge_subrequests: false };
const UPLOAD_LIMITS = ["max_upload_bytes", "max_upload_interval_seconds", "max_upload_records"] as const;

interface ExportedLogpushJob {
  /** Written when the job's name and dataset repeat live: a number, quoted beyond 2^53. */
  id?: number | string;
  name: string;
  dataset: string;
  /** In file form already (its credentials are references): see FileText. */
  destination_conf: FileText;
  enabled?: false;
  kind?: "edge";
  filter?: unknown;
  output_options?: Record<string, unknown>;
  max_upload_bytes?: number;
  max_upload_interval_seconds?: number;
  max_upload_records?: number;
  filter_attack_traffic?: true;
}

export interface ExportedLogpush {
  jobs: ExportedLogpushJob[];
  /** false when some live jobs could not be written, so that plan does not delete them. */
  prune?: false;
}

export function upperSnake(text: string): string {
  return text
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase();
}

/** A variable name not used yet in this export: ZONEFORM_<JOB>_<PARAM>, then with the zone id's start. */
export function envNameFor(notes: ExportNotes, zoneId: string, job: string, param: string): string {
  const base = `ZONEFORM_${upperSnake(job)}_${upperSnake(param)}`;
  const used = new Set(notes.env.map((e) => e.name));
  if (!used.has(base)) return base;
  const withZone = `${base}_${zoneId.slice(0, 8).toUpperCase()}`;
  let name = withZone;
  for (let i = 2; used.has(name); i++) name = `${withZone}_${i}`;
  return name;
}

/** destination_conf with each credential replaced by an `${env:…}` reference (and a note naming it). */
export function destinationWithEnvRefs(destination: string, ctx: SectionContext, jobName: string): string {
  const refer = (label: string, purpose: string) => {
    const name = envNameFor(ctx.notes, ctx.zoneId, jobName, label);
    ctx.notes.env.push({ name, zone_id: ctx.zoneId, purpose: `logpush job ${jobName}: ${purpose}` });
    return `\${env:${name}}`;
  };
  let out = "";
  let from = 0;
  let paths = 0;
  for (const part of destinationCredentials(destination)) {
    out += escapeTemplates(destination.slice(from, part.start));
    if (part.kind === "param") out += refer(part.name, `the ${part.name} parameter of destination_conf`);
    else if (part.kind === "path") out += refer(`path_${++paths}`, "a secret path segment of destination_conf");
    else if (part.kind === "password") out += refer("password", "the password in destination_conf's user info");
    else out += refer("userinfo", "the user info (user:password) of destination_conf");
    from = part.end;
  }
  return out + escapeTemplates(destination.slice(from));
}

export function exportedOutputOptions(options: Record<string, unknown>): {
  options: Record<string, unknown>;
  unknown: string[];
} {
  const defaults = { ...COMPARE_ONLY_DEFAULTS, ...outputDefaults(options.output_type) };
  const out: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (!OPTION_KEYS.has(key)) {
      unknown.push(key);
      continue;
    }
    const isDefault =
      JSON.stringify(value) === JSON.stringify(defaults[key]) && !(key === "output_type" && value !== "ndjson");
    if (key === "field_names" || !isDefault) out[key] = value;
  }
  return { options: out, unknown };
}

function exportedId(id: string): number | string {
  return Number.isSafeInteger(Number(id)) ? Number(id) : id;
}

function problemWith(job: LiveLogpushJob): string | undefined {
  if (!NAME.test(job.name))
    return `its name ${JSON.stringify(job.name)} cannot be an identity (1 to 512 letters, digits, '-' or '.')`;
  if (job.dataset === null || !DATASET.test(job.dataset))
    return `its dataset ${JSON.stringify(job.dataset)} is not a dataset name`;
  if (!DESTINATION.test(job.destination_conf)) return "its destination's scheme is not one the file format knows";
  return undefined;
}

export async function exportLogpush(ctx: SectionContext): Promise<ExportedLogpush> {
  const { live } =
    ctx.scope === "account"
      ? await accountLogpushJobs.read(ctx.read, { zone_id: ctx.zoneId, prune: true, logpush_jobs: [] })
      : await logpushJobs.read(ctx.read, { zone_id: ctx.zoneId, logs: { prune: true, logpush_jobs: [] } });
  const where = `${ctx.scope ?? "zone"} ${ctx.zoneId}`;
  const jobs: ExportedLogpushJob[] = [];
  const hint = (job: LiveLogpushJob) => JSON.stringify([job.name, job.dataset]);
  const count = new Map<string, number>();
  for (const job of live) count.set(hint(job), (count.get(hint(job)) ?? 0) + 1);
  let leftOut = 0;
  for (const job of live) {
    const problem = problemWith(job);
    if (problem) {
      leftOut += 1;
      ctx.notes.warnings.push(`${where}: Logpush job ${job.id} left out of the file: ${problem}`);
      continue;
    }
    const out: ExportedLogpushJob = {
      // Name and dataset repeat live: only the id tells plan which job this entry is.
      ...((count.get(hint(job)) ?? 0) > 1 ? { id: exportedId(job.id) } : {}),
      name: job.name,
      dataset: job.dataset!,
      destination_conf: new FileText(destinationWithEnvRefs(job.destination_conf, ctx, job.name)),
      ...(job.enabled ? {} : { enabled: false as const }),
      ...(job.kind === "edge" ? { kind: "edge" as const } : {}),
    };
    if (job.filter_unparsed !== undefined) {
      ctx.notes.warnings.push(
        `${where}: Logpush job ${job.name} has a filter that is not valid JSON; the file cannot hold it, ` +
          `and plan will clear it`,
      );
    } else if (job.filter) {
      out.filter = job.filter;
    }
    if (job.legacy_logpull !== undefined) {
      const { unknown } = outputOptionsFromLogpull(job.legacy_logpull);
      if (unknown.length > 0) {
        ctx.notes.warnings.push(
          `${where}: Logpush job ${job.name}: logpull_options parameter(s) ${unknown.join(", ")} left out ` +
            `(the file states output_options)`,
        );
      }
    }
    if (job.output_options) {
      const { options, unknown } = exportedOutputOptions(job.output_options);
      if (unknown.length > 0) {
        ctx.notes.warnings.push(
          `${where}: Logpush job ${job.name}: output option(s) ${unknown.join(", ")} left out (not in the file format)`,
        );
      }
      out.output_options = options;
    }
    for (const k of UPLOAD_LIMITS) if (job[k]) out[k] = job[k];
    // false is the default.
    if (job.filter_attack_traffic) out.filter_attack_traffic = true;
    jobs.push(out);
  }
  if (leftOut > 0)
    ctx.notes.warnings.push(
      `${where}: ${ctx.scope === "account" ? "prune" : "logs.prune"} is false so that plan keeps the ${leftOut} ` +
        "Logpush job(s) left out",
    );
  return { jobs, ...(leftOut > 0 ? { prune: false as const } : {}) };
}
