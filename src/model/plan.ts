// The plan: ordered changes per zone, each carrying the API calls that make it as plain data, so a
// plan can be saved, rendered in any format and tested call by call. Pure types, no imports.

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type ChangeKind = "create" | "update" | "delete" | "replace";

/**
 * Where what a POST creates can be found: `GET path` (every page of the list), or its `list` field,
 * an item matching every `match` field (its hints). With `known`, only an item whose id is not in it
 * is new; with `equals`, a new item is what was sent only when it equals it (see FinderCompare).
 */
export interface Finder {
  path: string;
  list?: string;
  match: Record<string, string>;
  /** The ids the list held when the plan read it: never adopted, never a reason to stop a create. */
  known?: string[];
  /** The content sent that the API reads back (no write-only field): compared field by field, deeply. */
  equals?: Record<string, unknown>;
  /** Fields of `equals` the API may answer in another spelling. */
  compare?: Record<string, FinderCompare>;
}

/** `bool`: true and "true" are equal; `json`: a JSON text compared by its value ("" and absent: none). */
export type FinderCompare = "bool" | "json";

/** One API call, relative to the API base (e.g. `zones/<id>/page_shield/policies`). */
export interface Operation {
  method: HttpMethod;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /**
   * For a POST that creates: how to find what it makes. A create checks first that nothing like it
   * appeared since the plan (another apply); after an answer that leaves it unclear whether the POST
   * was carried out, apply looks (each new object read by id) and adopts only what equals what was
   * sent; it never sends the POST again.
   */
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
  /** The resource kind, e.g. `page_shield_policy`. */
  resource: string;
  zone_id: string;
  /** What identifies the resource inside its zone: a description, a job name, a hostname, `settings`. */
  identity: string;
  /** Intent in words, e.g. "paranoia 1 → 2, threshold 60 → 40 (medium)". */
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
  /** An account's plan unit (its own objects, e.g. account-level Logpush jobs); absent: a zone's. */
  scope?: "account";
  changes: Change[];
  /** Fingerprint (sha256 of normalized JSON) of every live resource read, keyed `kind/identity`. */
  fingerprints: Record<string, string>;
  /** Problems found while planning that make the zone impossible to apply. */
  errors: string[];
  warnings: string[];
  /** The zone as the file declares it (secrets as `${env:NAME}`): what apply re-plans from a saved plan. */
  desired?: unknown;
  /** What `audit` checks of the zone and nothing writes to Cloudflare (its script inventory), for review. */
  audit?: AuditChecks;
}

/** What audit checks of a zone, a line each, and the lines of the base configuration (`plan --base`). */
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

/**
 * The plan file format this zoneform writes and reads (5 since 0.4.0: references where values stood, and
 * the accounts in a list of their own: src/plan/document.ts).
 */
export const PLAN_FORMAT_VERSION = 5;

export interface Plan {
  format_version: typeof PLAN_FORMAT_VERSION;
  /**
   * `sha256:…` of everything the plan file holds but `created_at` and the digest itself (src/plan/digest.ts),
   * in the form a plan file holds it.
   */
  digest?: string;
  created_at: string;
  account_id?: string;
  /** The file's safety settings, so a saved plan is checked the same way. */
  safety?: { max_deletes: number };
  zones: ZonePlan[];
  summary: PlanSummary;
  /** The `${env:NAME}` values the plan was made with, bound by a slow salted hash (src/plan/inputs.ts). */
  inputs?: PlanInputs;
}

/** The key derivation that binds each value, with its cost, recorded so that it can be raised later. */
export interface PlanKdf {
  name: "scrypt";
  /** CPU and memory cost (a power of two), block size, parallelism. */
  n: number;
  r: number;
  p: number;
}

/**
 * The references a plan used (`names`, sorted) and one KDF (`hash`, hex) of all their names and values
 * together, salted by the plan's derived salt (hex).
 */
export interface PlanInputs {
  kdf: PlanKdf;
  salt: string;
  names: string[];
  hash: string;
}
