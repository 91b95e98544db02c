// The contract of a resource kind.
// Spec: docs/architecture.md, Sections and plan and apply.
import type { IdShape, CloudflareClient } from "../cloudflare/index.js";
import type { AccountBase, DesiredStateOf, ZoneBase, Change } from "../model/index.js";
import type { Rule } from "./rules.js";

export interface ReadContext {
  client: CloudflareClient;
  desired: DesiredStateOf;
  /** Runs `fn` once per key for the whole run. */
  memo<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** The checks are made at apply, after the review. */
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
  /** Whether its changes in one zone each write an object of their own. */
  readonly independentChanges?: boolean;
  /** Fields whose diff shows exactly what the change's write sends under the same name in its body. */
  readonly bodyFields?: readonly string[];
  /** Whether the zone's file declares this kind (absent sections are never read or written). */
  owns(zone: Z): boolean;
  read(ctx: ReadContext, zone: Z): Promise<LiveRead<L>>;
  diff(zone: Z, live: L): DiffResult;
  /** Checks that need the API before the writes. */
  check?(ctx: ReadContext, zone: Z, changes: Change[]): Promise<string[]>;
  /** What to change in the file when the API refuses one of this kind's changes with an error code. */
  readonly errorHints?: Readonly<Record<number, (change: Change) => string>>;
}

/** A token permission level, as the dashboard names it ("Edit" is the API's "Write"). */
export type PermissionLevel = "Read" | "Edit";

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

export interface SectionContext {
  read: ReadContext;
  /** The zone exported, or with `scope: "account"` the account. */
  zoneId: string;
  scope?: "account";
  notes: ExportNotes;
}

export type AccountUnit = ZoneBase & AccountBase & { scope: "account" };

/** What an account's normalizer knows of the file its entry is in. */
interface AccountFileContext {
  zones: ReadonlyArray<{ zone_id: string; name?: string }>;
}

export interface AccountSection<Part extends object = object, FilePart extends object = object> {
  /** The key of the list in an entry of `accounts:`, e.g. `logpush_jobs`. */
  readonly key: string;
  readonly kinds: readonly ResourceKind<any, AccountUnit & Part>[];
  /** The entry (schema-valid) → its part of the normalized account, set on `out`. */
  normalize(entry: FilePart, out: AccountBase & Part, file: AccountFileContext): void;
  export(ctx: SectionContext): Promise<Record<string, unknown> | undefined>;
  summary(account: AccountBase & Part): string[];
  permissions: readonly SectionPermission[];
}

export interface Section<Part extends object = object, FilePart extends object = object> {
  readonly name: string;
  /** Names it was known by before, still taken by `export --sections` (never shown). */
  readonly formerNames?: readonly string[];
  /** Where it sits in a zone of the file, e.g. `logs.<key>`. */
  readonly path: string;
  /** The resource kinds that read, diff and apply it (each with its apply `order`). */
  readonly kinds: readonly ResourceKind<any, ZoneBase & Part>[];
  owns(zone: ZoneBase & Part): boolean;
  /** The file's zone (schema-valid) → its part of the normalized desired zone, set on `out`. */
  normalize(file: FilePart, out: ZoneBase & Part): void;
  export(ctx: SectionContext): Promise<Record<string, unknown> | undefined>;
  summary(zone: ZoneBase & Part): string[];
  permissions: readonly SectionPermission[];
  /** The form of the ids under the API collections it calls, for the client's "malformed id" message. */
  ids?: readonly IdShape[];
  /** Its semantic rules (what the schema cannot say), run on each file's document by `validate` and every load. */
  rules: readonly Rule[];
  /** Why the section can be written only in a zone, never in a file's `defaults:`. */
  readonly zoneOnly?: string;
  /** Its account-level list, when the API has one (an entry of `accounts:` holds it). */
  readonly account?: AccountSection<any, any>;
  /** What `audit` checks of the zone and nothing writes to Cloudflare, one line a reviewer reads each. */
  auditChecks?(zone: ZoneBase & Part): string[] | undefined;
}

/** A section's part of an account, from its declaration (never: it has none). */
export type AccountPartOf<S> = S extends { account: AccountSection<infer P, any> } ? P : never;

export type PartOf<S> = S extends Section<infer P, any> ? P : never;
export type FilePartOf<S> = S extends Section<any, infer F> ? F : never;
export type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;
