// The desired state: what the YAML file declares, validated and normalised (defaults filled,
// thresholds as integers, filters as objects). Field names follow the file (snake_case) so that
// export can write this shape back out. Pure types, no imports.

/** Content security rule (Page Shield policy) actions; `add_reporting_directives` is the API of 2026. */
export type PolicyAction = "log" | "allow" | "add_reporting_directives";
export type OwaspAction = "block" | "managed_challenge" | "js_challenge" | "log" | "challenge";
export type CertificateAuthority = "digicert" | "google" | "lets_encrypt" | "ssl_com" | "";

export interface DesiredPolicy {
  /** The live policy this entry is (`id:` in the file); without it the description matches. */
  id?: string;
  description: string;
  action: PolicyAction;
  expression: string;
  value: string;
  enabled: boolean;
}

export interface DesiredPageShield {
  /** Only the settings present in the file are managed. */
  enabled?: boolean;
  use_cloudflare_reporting_endpoint?: boolean;
  use_connection_url_path?: boolean;
  /** Absent: policies are not managed. `[]`: every live policy is deleted (unless prune is false). */
  policies?: DesiredPolicy[];
  /** false keeps live policies that the file does not list. Default true. */
  prune: boolean;
  /**
   * The authorized scripts of the payment pages (PCI DSS v4.0 6.4.3, 11.6.1): read by `audit`,
   * `inventory --merge` and `csp suggest --from-inventory`; never written to Cloudflare.
   */
  script_inventory?: DesiredScriptInventory;
}

export interface DesiredAuthorizedScript {
  /** An exact script URL, or a prefix ending in `*`. */
  url: string;
  justification: string;
  owner?: string;
  /** The reviewed version's hash (Page Shield's `hash`): another hash seen is a changed script. */
  hash?: string;
}

export interface DesiredScriptInventory {
  /** Page patterns in scope, `host/path` with `*` at the start or end (Page Shield's page_url filter). */
  pages: string[];
  authorized: DesiredAuthorizedScript[];
}

export interface DesiredOwasp {
  enabled: boolean;
  /** 1..4; rules tagged paranoia-level-(N+1..4) are disabled. Default 1. */
  paranoia_level: number;
  /** Anomaly score threshold as an integer (low=60, medium=40, high=25). Default 40. */
  score_threshold: number;
  /** Action of the last rule (949110). Default block. */
  action: OwaspAction;
  /** When the execute rule runs. Default `true` (every request). */
  expression: string;
}

export interface DesiredCloudflareManaged {
  enabled: boolean;
  /** Ruleset-wide action override; absent keeps each rule's own action. */
  action?: string;
  /** When the execute rule runs. Default `true` (every request). */
  expression: string;
}

export interface DesiredWaf {
  owasp?: DesiredOwasp;
  cloudflare_managed?: DesiredCloudflareManaged;
}

/** The response lists whose items may carry `preserve_duplicates`. */
export type ResponseFieldList = "response_headers" | "raw_response_headers";

export interface DesiredCustomFields {
  /** request_fields: request headers as they reached Cloudflare (raw). */
  request_headers: string[];
  /** transformed_request_fields: request headers after Transform Rules. Absent = []. */
  transformed_request_headers?: string[];
  /** response_fields: response headers after Transform Rules (transformed). */
  response_headers: string[];
  /** raw_response_fields: response headers as the origin sent them. Absent = []. */
  raw_response_headers?: string[];
  cookies: string[];
  /** `preserve_duplicates` the file states, by list and header name; a name without it keeps the live value. */
  preserve_duplicates?: Partial<Record<ResponseFieldList, Record<string, boolean>>>;
}

/** A logpush filter as written in YAML: `where` holding nested `and` / `or` groups and leaves. */
export type FilterNode =
  | { and: FilterNode[] }
  | { or: FilterNode[] }
  | { key: string; operator: string; value: unknown };

export interface LogpushFilter {
  where: FilterNode | Record<string, never>;
}

export interface DesiredLogpushJob {
  /** The live job this entry is (`id:` in the file, digits kept exact); without it name and dataset match. */
  id?: string;
  name: string;
  dataset: string;
  destination_conf: string;
  ownership_challenge?: string;
  enabled: boolean;
  kind?: "" | "edge";
  filter?: LogpushFilter;
  output_options?: Record<string, unknown>;
  max_upload_bytes?: number;
  max_upload_interval_seconds?: number;
  max_upload_records?: number;
}

export interface DesiredLogs {
  custom_fields?: DesiredCustomFields;
  /** Absent: jobs are not managed. */
  logpush_jobs?: DesiredLogpushJob[];
  /** false keeps live logpush jobs that the file does not list. Default true. */
  prune: boolean;
}

export interface DesiredCustomHostname {
  hostname: string;
  certificate_authority: CertificateAuthority;
}

/** Where a zone (or an item in it) was declared, for messages. */
export interface SourceRef {
  file: string;
  line: number;
  column: number;
}

export interface DesiredZone {
  zone_id: string;
  name?: string;
  page_shield?: DesiredPageShield;
  waf?: DesiredWaf;
  logs?: DesiredLogs;
  custom_hostnames?: DesiredCustomHostname[];
  source?: SourceRef;
  /** The zone as the file declares it, `${env:NAME}` references kept: what a saved plan carries. */
  declared?: Record<string, unknown>;
}

/** A value that came from `${env:NAME}`: shown as (sensitive), stored in plan files as the reference. */
export interface SecretRef {
  name: string;
  value: string;
}

/** A string of the file made with `${env:…}`: its value, and the template it was written as. */
export interface TemplatedValue {
  value: string;
  template: string;
}

/** What tells where secrets are: every env value used, and every string written with a reference. */
export interface SecretSource {
  secrets: SecretRef[];
  /** A string equal to one of these values is shown as its template (references hidden or kept). */
  templated?: TemplatedValue[];
}

export interface DesiredState {
  version: 1;
  account_id?: string;
  safety: { max_deletes: number };
  zones: DesiredZone[];
  /** Every `${env:NAME}` that was interpolated, with its value. */
  secrets: SecretRef[];
  /** Every string of the file that holds a reference, interpolated and as written. */
  templated?: TemplatedValue[];
  /** The files that were read, in order. */
  files: string[];
}
