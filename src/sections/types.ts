// The contract of a resource kind: what it owns in a desired zone, how it reads the live zone with the fewest calls,
// and how it turns the difference into changes carrying their API calls as data.
// Spec: docs/architecture.md.
import type { IdShape, CloudflareClient } from "../cloudflare/index.js";
import type { AccountBase, DesiredStateOf, ZoneBase, Change } from "../model/index.js";
import type { Rule } from "./rules.js";

export interface ReadContext {
  client: CloudflareClient;
  desired: DesiredStateOf;
  /** Runs `fn` once per key for the whole run (e.g. reading a managed ruleset shared by all zones). */
  memo<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /**
   * The checks are made at apply, after the review: a check then runs only what waited for it (a body holding a
   * secret), and its client puts the values in.
   */
  atApply?: boolean;
}

/** What a kind read for one zone: its live items and the fingerprint material of each. */
export interface LiveRead<L> {
  live: L;
  /** identity → the normalized live resource; hashed into the plan's fingerprints. */
  resources: Record<string, unknown>;
}

export interface DiffResult {
  changes: Change[];
  errors?: string[];
  warnings?: string[];
}

export interface ResourceKind<L = unknown, Z extends ZoneBase = ZoneBase> {
  /** Stable name, used in fingerprints and plan files, e.g. `page_shield_policy`. */
  readonly name: string;
  /** Apply order across kinds: lower first. */
  readonly order: number;
  /**
   * Whether its changes in one zone each write an object of their own (a policy, a job, a hostname), so that apply may
   * make them at once.
   */
  readonly independentChanges?: boolean;
  /** Fields whose diff shows exactly what the change's write sends under the same name in its body. */
  readonly bodyFields?: readonly string[];
  /** Whether the zone's file declares this kind (absent sections are never read or written). */
  owns(zone: Z): boolean;
  read(ctx: ReadContext, zone: Z): Promise<LiveRead<L>>;
  diff(zone: Z, live: L): DiffResult;
  /**
   * Checks that need the API before the writes (e.g. a Logpush destination is valid): at plan time those that send no
   * secret, at apply (`ctx.atApply`) those that do.
   */
  check?(ctx: ReadContext, zone: Z, changes: Change[]): Promise<string[]>;
  /**
   * What to change in the file when the API refuses one of this kind's changes with an error code (code → the advice
   * for that change).
   */
  readonly errorHints?: Readonly<Record<number, (change: Change) => string>>;
}

/** A token permission level, as the dashboard names it ("Edit" is the API's "Write"). */
export type PermissionLevel = "Read" | "Edit";

/** A token permission a section's calls need: its name, the level to read and to write, and where. */
export interface SectionPermission {
  /** As the dashboard names it: "Page Shield", "Zone WAF", … */
  name: string;
  scope: "zone" | "account";
  /** What `plan` and `drift` need (reads), and what a write needs. */
  read: PermissionLevel;
  write: PermissionLevel;
  /** The API paths (relative to the base) it covers; the longest match wins across sections. */
  paths: RegExp[];
  /** How `whoami` names what needs it (default: the section's path in the file). */
  label?: string;
  /** Only read by zoneform: `apply` needs no more than `read`. */
  readOnly?: boolean;
  /** Whether a configuration needs it at all (default: when the zone owns the section). */
  needed?(desired: DesiredStateOf): boolean;
}

/** An `${env:NAME}` reference the exported file makes, and what the user must set it to. */
export interface EnvVarNote {
  name: string;
  zone_id: string;
  /** e.g. `logpush job http-to-s3, destination_conf parameter secret-access-key` */
  purpose: string;
}

/** What an export collects on the way (export-context.ts has the helpers). */
export interface ExportNotes {
  /** Things the file could not express or that plan will still change; printed on stderr. */
  warnings: string[];
  env: EnvVarNote[];
  /** Remarks for the file's header comment. */
  remarks: string[];
}

/** What a section's exporter reads through, and where it leaves its notes. */
export interface SectionContext {
  read: ReadContext;
  /** The zone exported, or with `scope: "account"` the account. */
  zoneId: string;
  scope?: "account";
  notes: ExportNotes;
}

/** An account as the engine plans it: a unit like a zone, whose `zone_id` is the account's id. */
export type AccountUnit = ZoneBase & AccountBase & { scope: "account" };

/** What an account's normalizer knows of the file its entry is in. */
interface AccountFileContext {
  /** The zones of the file, as written (`zone_id`, `name`). */
  zones: ReadonlyArray<{ zone_id: string; name?: string }>;
}

/**
 * A section's part of an entry of `accounts:` (account-level objects, e.g. Logpush jobs): one list under the entry's
 * `key`, planned in the account's own unit.
 */
export interface AccountSection<Part extends object = object, FilePart extends object = object> {
  /** The key of the list in an entry of `accounts:`, e.g. `logpush_jobs`. */
  readonly key: string;
  /** The kinds that read, diff and apply it, in the account's unit. */
  readonly kinds: readonly ResourceKind<any, AccountUnit & Part>[];
  /** The entry (schema-valid) → its part of the normalized account, set on `out`. */
  normalize(entry: FilePart, out: AccountBase & Part, file: AccountFileContext): void;
  /** The list read from the live account, in the file's shape: the entry's keys to merge in, or undefined. */
  export(ctx: SectionContext): Promise<Record<string, unknown> | undefined>;
  /** What `validate --verbose` says of it. */
  summary(account: AccountBase & Part): string[];
  /** The token permissions its calls need (scope account). */
  permissions: readonly SectionPermission[];
}

/**
 * A section of the file (its folder's name and `path` say which): everything zoneform knows about it, in one folder
 * under src/sections/, listed once in src/sections/registry.ts.
 */
export interface Section<Part extends object = object, FilePart extends object = object> {
  /**
   * Its name: the folder under src/sections/ holding it (and its `schema.json`), and the last key of `path`
   * (docs/architecture.md, "Names"); what `export --sections` takes.
   */
  readonly name: string;
  /** Names it was known by before, still taken by `export --sections` (never shown). */
  readonly formerNames?: readonly string[];
  /** Where it sits in a zone of the file, e.g. `logs.<key>`. */
  readonly path: string;
  /** The resource kinds that read, diff and apply it (each with its apply `order`). */
  readonly kinds: readonly ResourceKind<any, ZoneBase & Part>[];
  /** Whether the zone's file declares the section. */
  owns(zone: ZoneBase & Part): boolean;
  /** The file's zone (schema-valid) → its part of the normalized desired zone, set on `out`. */
  normalize(file: FilePart, out: ZoneBase & Part): void;
  /**
   * The section read from the live zone, in the file's shape: a fragment of the zone to merge in, or undefined for
   * none.
   */
  export(ctx: SectionContext): Promise<Record<string, unknown> | undefined>;
  /** What `validate --verbose` says of it (one or more parts of the zone's line), or nothing when absent. */
  summary(zone: ZoneBase & Part): string[];
  /** The token permissions its calls need. */
  permissions: readonly SectionPermission[];
  /** The form of the ids under the API collections it calls, for the client's "malformed id" message. */
  ids?: readonly IdShape[];
  /** Its semantic rules (what the schema cannot say), run on each file's document by `validate` and every load. */
  rules: readonly Rule[];
  /**
   * Why the section can be written only in a zone, never in a file's `defaults:` (it names objects that exist in one
   * zone); absent: it may be a default, merged into every zone of the file.
   */
  readonly zoneOnly?: string;
  /** Its account-level list, when the API has one (an entry of `accounts:` holds it). */
  readonly account?: AccountSection<any, any>;
  /**
   * What `audit` checks of the zone and nothing writes to Cloudflare, one line a reviewer reads each (a page it
   * fetches, a script it authorizes): the plan shows them and their diff with the base.
   */
  auditChecks?(zone: ZoneBase & Part): string[] | undefined;
}

/** A section's part of an account, from its declaration (never: it has none). */
export type AccountPartOf<S> = S extends { account: AccountSection<infer P, any> } ? P : never;

/** A section's part of a desired zone, from its declaration. */
export type PartOf<S> = S extends Section<infer P, any> ? P : never;
/** A section's part of a zone in the file, from its declaration. */
export type FilePartOf<S> = S extends Section<any, infer F> ? F : never;
/** A union of object types → their intersection (`A | B` → `A & B`). */
export type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;
