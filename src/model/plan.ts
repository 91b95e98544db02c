// The plan: ordered changes per zone, each carrying the API calls that make it as plain data.

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type ChangeKind = "create" | "update" | "delete" | "replace";

export interface Finder {
  path: string;
  list?: string;
  match: Record<string, string>;
  known?: string[];
  equals?: Record<string, unknown>;
  /** Fields of `equals` the API may answer in another spelling. */
  compare?: Record<string, FinderCompare>;
}

export type FinderCompare = "bool" | "json";

export interface Operation {
  method: HttpMethod;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** For a POST that creates: how to find what it makes. */
  finds?: Finder;
}

/** A field-level difference shown under an update. */
export interface FieldDiff {
  field: string;
  before?: unknown;
  after?: unknown;
  /** Long text (CSP values, expressions, filters): rendered as a word diff. */
  text?: boolean;
  /** Never shown: rendered as (sensitive). */
  sensitive?: boolean;
}

export interface Change {
  kind: ChangeKind;
  resource: string;
  zone_id: string;
  identity: string;
  summary?: string;
  /** The live id this change touches, when there is one. */
  live_id?: string;
  before?: unknown;
  after?: unknown;
  fields: FieldDiff[];
  operations: Operation[];
  /** Things a reviewer should know (duplicates found, chain changes, …). */
  notes?: string[];
}

export interface ZonePlan {
  /** The unit's id: a zone's, or with `scope: "account"` the account's. */
  zone_id: string;
  name?: string;
  scope?: "account";
  changes: Change[];
  /** Fingerprint (sha256 of normalized JSON) of every live resource read, keyed `kind/identity`. */
  fingerprints: Record<string, string>;
  /** Problems found while planning that make the zone impossible to apply. */
  errors: string[];
  warnings: string[];
  desired?: unknown;
  audit?: AuditChecks;
}

export interface AuditChecks {
  lines: string[];
  /** Absent: no base configuration was given; empty: the base had none. */
  base?: string[];
}

export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
}

export const PLAN_FORMAT_VERSION = 5;

export interface Plan {
  format_version: typeof PLAN_FORMAT_VERSION;
  digest?: string;
  created_at: string;
  account_id?: string;
  /** The file's safety settings, so a saved plan is checked the same way. */
  safety?: { max_deletes: number };
  zones: ZonePlan[];
  summary: PlanSummary;
  inputs?: PlanInputs;
}

export interface PlanKdf {
  name: "scrypt";
  /** CPU and memory cost (a power of two), block size, parallelism. */
  n: number;
  r: number;
  p: number;
}

export interface PlanInputs {
  kdf: PlanKdf;
  salt: string;
  names: string[];
  hash: string;
}
