// A valid document → the normalised desired state: defaults filled, thresholds as integers, custom
// fields as three lists, an empty filter dropped. Runs only on documents that passed every check.
import type {
  DesiredCustomFields,
  DesiredLogpushJob,
  DesiredLogs,
  DesiredOwasp,
  DesiredPageShield,
  DesiredPolicy,
  DesiredWaf,
  DesiredZone,
  LogpushFilter,
  OwaspAction,
  PolicyAction,
  CertificateAuthority,
  SourceRef,
} from "../model/desired.js";
import { isEmptyFilter } from "./filter.js";

export const DEFAULT_MAX_DELETES = 5;
/** An execute rule's expression when the file gives none: every request. */
export const DEFAULT_EXPRESSION = "true";
export const SCORE_THRESHOLDS = { low: 60, medium: 40, high: 25 } as const;

/** The shape the schema guarantees (optional fields as written). */
export interface FileDocument {
  version: 1;
  account_id?: string;
  safety?: { max_deletes?: number };
  zones: FileZone[];
}

export interface FileZone {
  zone_id: string;
  name?: string;
  page_shield?: Omit<DesiredPageShield, "prune" | "policies"> & {
    prune?: boolean;
    policies?: Array<{ description: string; action: PolicyAction; expression: string; value: string; enabled?: boolean }>;
  };
  waf?: {
    owasp?: { enabled: boolean; paranoia_level?: number; score_threshold?: number | keyof typeof SCORE_THRESHOLDS; action?: OwaspAction; expression?: string };
    cloudflare_managed?: { enabled: boolean; action?: OwaspAction; expression?: string };
  };
  logs?: {
    custom_fields?: Partial<DesiredCustomFields>;
    logpush_jobs?: Array<Omit<DesiredLogpushJob, "enabled"> & { enabled?: boolean }>;
    prune?: boolean;
  };
  custom_hostnames?: Array<{ hostname: string; certificate_authority?: CertificateAuthority }>;
}

export function scoreThreshold(value: number | keyof typeof SCORE_THRESHOLDS | undefined): number {
  if (value === undefined) return SCORE_THRESHOLDS.medium;
  return typeof value === "number" ? value : SCORE_THRESHOLDS[value];
}

export function normaliseZone(zone: FileZone, source?: SourceRef): DesiredZone {
  const out: DesiredZone = { zone_id: zone.zone_id };
  if (zone.name !== undefined) out.name = zone.name;
  if (zone.page_shield) out.page_shield = normalisePageShield(zone.page_shield);
  if (zone.waf) out.waf = normaliseWaf(zone.waf);
  if (zone.logs) out.logs = normaliseLogs(zone.logs);
  if (zone.custom_hostnames) {
    out.custom_hostnames = zone.custom_hostnames.map((h) => ({
      hostname: h.hostname.toLowerCase(),
      certificate_authority: h.certificate_authority ?? "",
    }));
  }
  if (source) out.source = source;
  return out;
}

function normalisePageShield(ps: NonNullable<FileZone["page_shield"]>): DesiredPageShield {
  const out: DesiredPageShield = { prune: ps.prune ?? true };
  if (ps.enabled !== undefined) out.enabled = ps.enabled;
  if (ps.use_cloudflare_reporting_endpoint !== undefined) out.use_cloudflare_reporting_endpoint = ps.use_cloudflare_reporting_endpoint;
  if (ps.use_connection_url_path !== undefined) out.use_connection_url_path = ps.use_connection_url_path;
  if (ps.policies) {
    out.policies = ps.policies.map(
      (p): DesiredPolicy => ({ description: p.description, action: p.action, expression: p.expression, value: p.value, enabled: p.enabled ?? true }),
    );
  }
  return out;
}

function normaliseWaf(waf: NonNullable<FileZone["waf"]>): DesiredWaf {
  const out: DesiredWaf = {};
  if (waf.owasp) {
    const owasp: DesiredOwasp = {
      enabled: waf.owasp.enabled,
      paranoia_level: waf.owasp.paranoia_level ?? 1,
      score_threshold: scoreThreshold(waf.owasp.score_threshold),
      action: waf.owasp.action ?? "block",
      expression: waf.owasp.expression ?? DEFAULT_EXPRESSION,
    };
    out.owasp = owasp;
  }
  if (waf.cloudflare_managed) {
    out.cloudflare_managed = { enabled: waf.cloudflare_managed.enabled, expression: waf.cloudflare_managed.expression ?? DEFAULT_EXPRESSION };
    if (waf.cloudflare_managed.action !== undefined) out.cloudflare_managed.action = waf.cloudflare_managed.action;
  }
  return out;
}

function normaliseLogs(logs: NonNullable<FileZone["logs"]>): DesiredLogs {
  const out: DesiredLogs = { prune: logs.prune ?? true };
  if (logs.custom_fields) {
    out.custom_fields = {
      request_headers: [...(logs.custom_fields.request_headers ?? [])],
      response_headers: [...(logs.custom_fields.response_headers ?? [])],
      cookies: [...(logs.custom_fields.cookies ?? [])],
    };
  }
  if (logs.logpush_jobs) out.logpush_jobs = logs.logpush_jobs.map(normaliseJob);
  return out;
}

function normaliseJob(job: NonNullable<NonNullable<FileZone["logs"]>["logpush_jobs"]>[number]): DesiredLogpushJob {
  const out: DesiredLogpushJob = {
    name: job.name,
    dataset: job.dataset,
    destination_conf: job.destination_conf,
    enabled: job.enabled ?? true,
  };
  if (job.ownership_challenge !== undefined) out.ownership_challenge = job.ownership_challenge;
  if (job.kind !== undefined) out.kind = job.kind;
  // `where: {}` is "no filter", the same as no filter key: one spelling, so no perpetual diff.
  if (job.filter && !isEmptyFilter(job.filter)) out.filter = structuredClone(job.filter) as LogpushFilter;
  if (job.output_options !== undefined) out.output_options = structuredClone(job.output_options);
  if (job.max_upload_bytes !== undefined) out.max_upload_bytes = job.max_upload_bytes;
  if (job.max_upload_interval_seconds !== undefined) out.max_upload_interval_seconds = job.max_upload_interval_seconds;
  if (job.max_upload_records !== undefined) out.max_upload_records = job.max_upload_records;
  return out;
}
