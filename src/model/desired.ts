// The desired state's frame: what every zone holds whatever its sections (id, name, where it was
// declared), the secrets, and the state around the zones. Each section's part of a zone is declared in
// its own folder (src/sections/<name>/types.ts); the registry (src/sections/registry.ts) joins them into
// `DesiredZone` and `DesiredState`. Field names follow the file (snake_case) so that export can write
// this shape back out. Pure types (and the default file name), no imports.

/** The configuration file a command reads when none is named. */
export const DEFAULT_CONFIG_PATH = "zoneform.yaml";

/** Where a zone (or an item in it) was declared, for messages. */
export interface SourceRef {
  file: string;
  line: number;
  column: number;
}

/** What every desired zone holds, whatever its sections. */
export interface ZoneBase {
  zone_id: string;
  name?: string;
  /**
   * The account the zone belongs to (its own `account_id:`, else the file's): its entry under `accounts:`
   * names the token its calls carry.
   */
  account_id?: string;
  /**
   * Set on a plan unit that is an account (an entry of `accounts:` as the engine plans it): its `zone_id`
   * is then the account's id, and its calls go to `accounts/{id}/…`.
   */
  scope?: "account";
  source?: SourceRef;
  /** The zone as the file declares it, `${env:NAME}` references kept: what a saved plan carries. */
  declared?: Record<string, unknown>;
}

/** An account's own token: the variable that holds it, read when a client is made, never bound into a plan. */
export interface TokenRef {
  env: string;
}

/** What every entry of `accounts:` holds, whatever its lists; each section may add a list (its `account` part). */
export interface AccountBase {
  account_id: string;
  /** The token for this account's objects and every zone of the account; absent: CLOUDFLARE_API_TOKEN. */
  api_token?: TokenRef;
  /** false keeps live objects of the account's lists that the entry does not list. Default true. */
  prune: boolean;
  source?: SourceRef;
  /** The entry as the file declares it, `${env:NAME}` references kept: what a saved plan carries. */
  declared?: Record<string, unknown>;
}

/** What hides values in a text: every value of the holder, in every encoding (src/redact.ts). */
export interface ValueRedactor {
  redact(text: string): string;
  redactString(s: string): string;
  redactDeep<T>(value: T): T;
  /** Whether a text holds a value in any form: the last check before a plan file is written. */
  valueIn(text: string): boolean;
}

/**
 * The values of the file's `${env:NAME}` references, held by src/secrets alone: the desired state carries
 * the references (`${env:NAME}`, `$${` for a literal `${`), never the values.
 */
export interface SecretValues {
  /** The variables referenced, sorted. */
  readonly names: readonly string[];
  /**
   * A live value (what a read answered) in template syntax: `${` escaped, each value as its reference,
   * so that the planner compares references with references and never sees a value. `scope`: the desired
   * unit it was read for, whose own references it is read with (absent: every reference).
   */
  templatize<T>(live: T, scope?: unknown): T;
  /** The value with every reference put in: what a write sends, at apply only. */
  resolveForWrite<T>(value: T): T;
  /** What hides the values in an output. */
  redactor(): ValueRedactor;
}

/** The desired state around its zones; `DesiredState` (src/sections/registry.ts) is this with every section. */
export interface DesiredStateOf<Z extends ZoneBase = ZoneBase, A extends AccountBase = AccountBase> {
  version: 1;
  account_id?: string;
  safety: { max_deletes: number };
  zones: Z[];
  /** The entries of `accounts:` (absent or empty: none); `DesiredState` holds every section's part of each. */
  accounts?: A[];
  /** The values of its `${env:NAME}` references (api_token variables are credentials, not among them). */
  secrets: SecretValues;
  /** The files that were read, in order. */
  files: string[];
}
