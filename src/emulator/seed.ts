// The default state the emulator starts with and resets to.
// Spec: docs/emulator.md, The seed.
import type { EmptyZoneContext, StateContext } from "./area.js";
import { AREAS } from "./areas/index.js";
import {
  DEFAULT_EMAIL,
  DEFAULT_KEY,
  DEFAULT_RATE_LIMIT,
  DEFAULT_TOKEN,
  SEED_ACCOUNT_ID,
  SEED_TIME,
} from "./defaults.js";
import { zoneIdFor } from "./ids.js";
import type { AccountState, EmulatorState, ZonePlanName, ZoneState } from "./types.js";

export {
  DEFAULT_EMAIL,
  DEFAULT_KEY,
  DEFAULT_TOKEN,
  SEED_ACCOUNT_ID,
} from "./defaults.js";

const SEED_ZONES: Array<{ name: string; plan: ZonePlanName }> = [
  { name: "example.com", plan: "enterprise" },
  { name: "example.net", plan: "business" },
  { name: "example.org", plan: "pro" },
  { name: "example.dev", plan: "free" },
];

/** The seed as it is at `now` (ms since the epoch; default the system clock, in whole seconds). */
export function defaultState(opts: { now?: number } = {}): EmulatorState {
  const now = Math.floor((opts.now ?? Date.now()) / 1000) * 1000;
  const seedTime = new Date(now).toISOString();
  const zones = SEED_ZONES.map((z) => seedZone(z.name, z.plan, now));
  return {
    account_id: SEED_ACCOUNT_ID,
    credentials: {
      tokens: [DEFAULT_TOKEN],
      keys: [{ email: DEFAULT_EMAIL, key: DEFAULT_KEY }],
    },
    rate_limit: { ...DEFAULT_RATE_LIMIT },
    ...areaStates({ now: seedTime, zones, accounts: [] }),
    zones,
  } as EmulatorState;
}

export function areaStates(ctx: StateContext): Partial<EmulatorState> {
  return Object.assign({}, ...AREAS.map((a) => a.state?.(ctx) ?? {}));
}

export function createEmptyZone(
  name: string,
  plan: ZonePlanName,
  opts: { wafMode?: EmptyZoneContext["wafMode"]; now?: string } = {},
): ZoneState {
  const ctx: EmptyZoneContext = { now: opts.now ?? SEED_TIME, ...(opts.wafMode ? { wafMode: opts.wafMode } : {}) };
  return Object.assign({ id: zoneIdFor(name), name, plan }, ...AREAS.map((a) => a.emptyZone?.(ctx) ?? {})) as ZoneState;
}

export function createEmptyAccount(id: string): AccountState {
  return Object.assign({ id }, ...AREAS.map((a) => a.emptyAccount?.() ?? {})) as AccountState;
}

function seedZone(name: string, plan: ZonePlanName, now: number): ZoneState {
  const zone = createEmptyZone(name, plan, { now: new Date(now).toISOString() });
  for (const area of AREAS) area.seedZone?.(zone, now);
  return zone;
}
