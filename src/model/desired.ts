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

/** An account's own token: the variable that holds it (what messages name) and its value. */
export interface TokenRef {
  env: string;
  value: string;
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

/** The desired state around its zones; `DesiredState` (src/sections/registry.ts) is this with every section. */
export interface DesiredStateOf<Z extends ZoneBase = ZoneBase, A extends AccountBase = AccountBase> {
  version: 1;
  account_id?: string;
  safety: { max_deletes: number };
  zones: Z[];
  /** The entries of `accounts:` (absent or empty: none); `DesiredState` holds every section's part of each. */
  accounts?: A[];
  /** Every `${env:NAME}` that was interpolated, with its value. */
  secrets: SecretRef[];
  /** Every string of the file that holds a reference, interpolated and as written. */
  templated?: TemplatedValue[];
  /** The files that were read, in order. */
  files: string[];
}
