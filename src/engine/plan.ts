// Planning against the live zones: read, the pure planner, the checks that need the API.
import { RunStoppedError } from "../errors.js";
import type { Plan, ZonePlan } from "../model/index.js";
import {
  planDigest,
  assemblePlan,
  planZone,
  planUnits,
  startBinding,
  unitCount,
  unitKey,
  unitName,
  unitsOf,
} from "../plan/index.js";
import type { CloudflareClient } from "../cloudflare/index.js";
import {
  type ReadContext,
  type ResourceKind,
  type DesiredState,
  type DesiredZone,
  RESOURCE_KINDS,
} from "../sections/index.js";
import { createReadContext, isReportable, readZone, unitLimiter, type ReadOptions } from "./read.js";
import { readOnly, resolving } from "../secrets/index.js";

export interface Seal {
  desired: DesiredState;
  digest: string;
}

const seals = new WeakMap<Plan, Seal>();

function seal(plan: Plan, desired: DesiredState): Plan {
  seals.set(plan, { desired, digest: planDigest(plan) });
  return plan;
}

export function sealOf(plan: Plan): Seal | undefined {
  return seals.get(plan);
}

async function checkZone(
  ctx: ReadContext,
  zone: DesiredZone,
  zp: ZonePlan,
  kinds: readonly ResourceKind[] = RESOURCE_KINDS,
): Promise<ZonePlan> {
  if (zp.errors.length > 0) return zp;
  // The kinds' checks run at once; their findings keep the kinds' order.
  const found = await Promise.all(
    kinds
      .filter((k) => k.check && k.owns(zone))
      .map(async (kind) => {
        try {
          return await kind.check!(ctx, zone, zp.changes);
        } catch (err) {
          if (!isReportable(err)) throw err;
          return [`checking ${kind.name}: ${err.message}`];
        }
      }),
  );
  const errors = found.flat();
  return errors.length > 0 ? { ...zp, errors: [...zp.errors, ...errors] } : zp;
}

export async function checkAtApply(
  plan: Plan,
  desired: DesiredState,
  client: CloudflareClient,
  kinds: readonly ResourceKind[] = RESOURCE_KINDS,
): Promise<string[]> {
  const ctx = { ...createReadContext(resolving(client, desired.secrets), desired), atApply: true };
  const units = new Map(planUnits(desired, kinds).map((u) => [unitKey(u.unit), u]));
  const found = await Promise.all(
    plan.zones.map(async (zp) => {
      const unit = units.get(unitKey(zp));
      if (!unit || zp.changes.length === 0) return [];
      const checked = await checkZone(ctx, unit.unit as DesiredZone, { ...zp, errors: [] }, unit.kinds);
      return checked.errors.map((e) => `[${unitName(zp)}] ${e}`);
    }),
  );
  return found.flat();
}

export async function planZones(opts: ReadOptions): Promise<Plan> {
  // The one slow KDF of the plan's `${env:…}` values, derived while the reads are in flight.
  startBinding(opts.desired);
  const kinds = opts.kinds ?? RESOURCE_KINDS;
  // Before the review nothing carries a value: a request holding a reference is never sent.
  const ctx = createReadContext(readOnly(opts.client), opts.desired);
  const createdAt = (opts.now?.() ?? new Date()).toISOString();
  const limitOf = unitLimiter(opts.client, opts.parallelism);
  let done = 0;
  const planned = new Set<string>();
  // Zones first, then accounts: each a unit of its own, read and planned at once under the client's limits.
  const units = planUnits(opts.desired, kinds);
  const zones = await withUnitsStopped(
    units.map(({ unit }) => unit),
    planned,
    () =>
      Promise.all(
        units.map(({ unit, kinds: unitKinds }) =>
          limitOf(unit)(async () => {
            const zone = unit as DesiredZone;
            const live = await readZone(ctx, zone, unitKinds);
            const zp = await checkZone(ctx, zone, planZone(opts.desired, zone, live, unitKinds, opts.base), unitKinds);
            done += 1;
            planned.add(unitKey(zone));
            opts.progress?.(`read ${unitName(zone)} (${done}/${units.length})`);
            opts.onZoneDone?.(done, units.length);
            return zp;
          }),
        ),
      ),
  );
  return seal(assemblePlan(opts.desired, zones, createdAt), opts.desired);
}

async function withUnitsStopped<T>(
  units: ReadonlyArray<Parameters<typeof unitKey>[0] & { scope?: "account" }>,
  planned: ReadonlySet<string>,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof RunStoppedError) || err.reason !== "cause") throw err;
    const stopped = units.filter((u) => !planned.has(unitKey(u)));
    const what = stopped.length < units.length ? unitsOf(stopped, units) : unitCount(stopped);
    throw new RunStoppedError(
      `${err.message}\nStopped ${what} before ${stopped.length === 1 ? "it was" : "they were"} planned; ` +
        "nothing was changed.",
      err.exitCode,
      err.reason,
    );
  }
}
