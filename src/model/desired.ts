// The desired state's frame: what every zone holds whatever its sections (id, name, where it was declared), the
// secrets, and the state around the zones.

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
  account_id?: string;
  scope?: "account";
  source?: SourceRef;
  declared?: Record<string, unknown>;
}

export interface TokenRef {
  env: string;
}

export interface AccountBase {
  account_id: string;
  /** The token for this account's objects and every zone of the account; absent: CLOUDFLARE_API_TOKEN. */
  api_token?: TokenRef;
  /** false keeps live objects of the account's lists that the entry does not list. */
  prune: boolean;
  source?: SourceRef;
  declared?: Record<string, unknown>;
}

export interface ValueRedactor {
  redact(text: string): string;
  redactString(s: string): string;
  redactDeep<T>(value: T): T;
  valueIn(text: string): boolean;
}

export interface SecretValues {
  /** The variables referenced, sorted. */
  readonly names: readonly string[];
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
  accounts?: A[];
  /** The values of its `${env:NAME}` references (api_token variables are credentials, not among them). */
  secrets: SecretValues;
  /** The files that were read, in order. */
  files: string[];
}
