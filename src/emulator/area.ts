// The contract of an emulator area: one folder under areas/ per API, listed in areas/index.ts.
// Spec: docs/emulator.md, Adding an emulator area.
import type { Clock } from "./clock.js";
import type { AccountState, EmulatorState, Route, ZoneState } from "./types.js";

export interface EmptyZoneContext {
  /** When it is made (ISO 8601): the time its settings were last updated. */
  now: string;
  /** The zone's WAF at the start (`POST /__emulator/zones` `waf_migration`); default `new`. */
  wafMode?: "previous" | "validation" | "new";
}

export interface StateContext {
  /** The seed's instant (ISO 8601); a state document's missing parts are dated at the fixed SEED_TIME. */
  now: string;
  input?: Record<string, unknown>;
  zones: readonly ZoneState[];
  accounts: readonly AccountState[];
}

export interface RecordedLoader {
  /**
   * The GET path it answers, parameters as `:x` (`zones/:zone/logpush/jobs`); `:zone`/`:account` are 32 hex.
   */
  path: string;
  load(ctx: RecordedContext, ids: string[], result: unknown): void;
}

export interface RecordedContext {
  state: EmulatorState;
  /** The zone of that id, created (named `recorded-<8 hex>.example`, enterprise) when the state lacks it. */
  zone(id: string): ZoneState;
  account(id: string): AccountState;
}

export interface AdminContext {
  state: EmulatorState;
  clock: Clock;
}

/** `body`: the parsed JSON body; `arg`: the path segment after the endpoint's name (`ownership/<arg>`). */
export type AdminHandler = (ctx: AdminContext, body: unknown, url: URL, arg: string | undefined) => unknown;

export interface EmulatorArea {
  readonly name: string;
  readonly routes: readonly Route[];
  /** The shape of each id parameter its routes name (`policy_id`: 32 hex): a malformed id is a 400. */
  readonly idParams?: Readonly<Record<string, (value: string) => boolean>>;
  emptyZone?(ctx: EmptyZoneContext): Partial<ZoneState>;
  emptyAccount?(): Partial<AccountState>;
  /** Fills its part of a seed zone (made empty first) as the seed is at `now` (ms since the epoch). */
  seedZone?(zone: ZoneState, now: number): void;
  state?(ctx: StateContext): Partial<EmulatorState>;
  /** How a recorded answer of one of its GET paths is loaded (`POST /__emulator/recorded`). */
  readonly recorded?: readonly RecordedLoader[];
  readonly admin?: Readonly<Record<string, AdminHandler>>;
}
