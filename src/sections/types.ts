// The contract of a resource kind: what it owns in a desired zone, how it reads the live zone with the
// fewest calls, and how it turns the difference into changes carrying their API calls as data.
import type { CloudflareClient } from "../cloudflare/types.js";
import type { DesiredState, DesiredZone } from "../model/desired.js";
import type { Change } from "../model/plan.js";

export interface ReadContext {
  client: CloudflareClient;
  desired: DesiredState;
  /** Runs `fn` once per key for the whole run (e.g. reading a managed ruleset shared by all zones). */
  memo<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/** What a kind read for one zone: its live items and the fingerprint material of each. */
export interface LiveRead<L> {
  live: L;
  /** identity → the normalised live resource; hashed into the plan's fingerprints. */
  resources: Record<string, unknown>;
}

export interface DiffResult {
  changes: Change[];
  errors?: string[];
  warnings?: string[];
}

export interface ResourceKind<L = unknown> {
  /** Stable name, used in fingerprints and plan files, e.g. `page_shield_policy`. */
  readonly name: string;
  /** Apply order across kinds: lower first. */
  readonly order: number;
  /** Whether the zone's file declares this kind (absent sections are never read or written). */
  owns(zone: DesiredZone): boolean;
  read(ctx: ReadContext, zone: DesiredZone): Promise<LiveRead<L>>;
  diff(zone: DesiredZone, live: L): DiffResult;
  /** Checks that need the API before apply (e.g. a Logpush destination is reachable). */
  check?(ctx: ReadContext, zone: DesiredZone, changes: Change[]): Promise<string[]>;
}
