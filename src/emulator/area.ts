// The contract of an emulator area: one folder under areas/ per API, listed in areas/index.ts.
// Spec: docs/emulator.md, Adding an emulator area.
import type { Clock } from "./clock.js";
import type { AccountState, EmulatorState, Route, ZoneState } from "./types.js";

/** What a new, empty zone is made with (`POST /__emulator/zones`, a state document's missing fields). */
export interface EmptyZoneContext {
  /** When it is made (ISO 8601). */
  now: string;
  /** The zone's WAF at the start (`POST /__emulator/zones` `waf_migration`); default `new`. */
  wafMode?: "previous" | "validation" | "new";
}

/** The state's top-level part of an area. */
export interface StateContext {
  /** The seed's instant (ISO 8601); a state document's missing parts are dated at the fixed SEED_TIME. */
  now: string;
  /** The state document being read, when there is one. */
  input?: Record<string, unknown>;
  /** The zones and accounts already read. */
  zones: readonly ZoneState[];
  accounts: readonly AccountState[];
}

/** Places one recorded answer's result in the state (recorded.ts). */
export interface RecordedLoader {
  /** The GET path it answers, parameters as `:x` (`zones/:zone/logpush/jobs`). */
  path: string;
  load(ctx: RecordedContext, ids: string[], result: unknown): void;
}

export interface RecordedContext {
  state: EmulatorState;
  /** The zone of that id, created (named `recorded-<8 hex>.example`, enterprise) when the state lacks it. */
  zone(id: string): ZoneState;
  /** The account of that id, created empty when the state lacks it. */
  account(id: string): AccountState;
}

/** What an area's admin endpoint is given. */
export interface AdminContext {
  state: EmulatorState;
  clock: Clock;
}

/** `body`: the parsed JSON body; `arg`. */
export type AdminHandler = (ctx: AdminContext, body: unknown, url: URL, arg: string | undefined) => unknown;

export interface EmulatorArea {
  /** Its folder under areas/, e.g. `page-shield`. */
  readonly name: string;
  /** Its endpoints under /client/v4/. */
  readonly routes: readonly Route[];
  /** The shape of each id parameter its routes name (`policy_id`: 32 hex). */
  readonly idParams?: Readonly<Record<string, (value: string) => boolean>>;
  /** Its part of a new, empty zone. */
  emptyZone?(ctx: EmptyZoneContext): Partial<ZoneState>;
  /** Its part of an empty account (`accounts[]`). */
  emptyAccount?(): Partial<AccountState>;
  /** Fills its part of a seed zone (made empty first) as the seed is at `now` (ms since the epoch). */
  seedZone?(zone: ZoneState, now: number): void;
  /** Its top-level fields of the state (e.g. `account_rulesets`). */
  state?(ctx: StateContext): Partial<EmulatorState>;
  /** How a recorded answer of one of its GET paths is loaded (`POST /__emulator/recorded`). */
  readonly recorded?: readonly RecordedLoader[];
  /** Its admin endpoints under /__emulator/, by `METHOD name` (`POST inventory`). */
  readonly admin?: Readonly<Record<string, AdminHandler>>;
}
