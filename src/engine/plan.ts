// Planning against the live zones: read, the pure planner, the checks that need the API. What the
// library's `plan()`, the CLI's plan/apply/drift and the engine's apply (to verify a plan it is
// given) all call, so they cannot disagree.
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

/** What the engine knows of a plan it made: the desired state it was made from and its content's digest then. */
export interface Seal {
  desired: DesiredState;
  digest: string;
}

const seals = new WeakMap<Plan, Seal>();

function seal(plan: Plan, desired: DesiredState): Plan {
  seals.set(plan, { desired, digest: planDigest(plan) });
  return plan;
}

/**
 * The seal of a plan this engine made in this process (`planZones`), or undefined for any other
 * plan (read from a file, built or copied by a caller). A plan whose content changed since has its
 * seal still: compare `digest` with `planDigest(plan)` to see whether it was edited.
 */
export function sealOf(plan: Plan): Seal | undefined {
  return seals.get(plan);
}

/**
 * The checks that need the API before apply (a Logpush destination is valid, its ownership token is
 * right): a separate, explicit step after planning, whose findings are zone errors.
 */
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

/**
 * The checks that waited for apply (a body holding a secret, such as a Logpush destination with its
 * credentials), made with the values put in before the first write: what they find stops the run with
 * nothing written, each line naming its zone.
 */
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

/**
 * The engine's plan, the library's `plan()` and the CLI's alike: for each zone, read it (read.ts),
 * plan it with the pure planner (`planZone`), then run the checks that need the API (`checkZone`).
 * Zones overlap under the client's one rate limiter: each is planned as soon as it has been read. No
 * writes. The plan is sealed (see `sealOf`) with the desired state it was made from.
 */
export async function planZones(opts: ReadOptions): Promise<Plan> {
  // The one slow KDF of the plan's `${env:…}` values, derived while the reads are in flight.
  startBinding(opts.desired);
  const kinds = opts.kinds ?? RESOURCE_KINDS;
  // Before the review nothing carries a value: a request holding a reference is never sent.
  const ctx = createReadContext(readOnly(opts.client), opts.desired);
  const createdAt = (opts.now?.() ?? new Date()).toISOString();
  // A zone waits on its own chain (the OWASP ruleset after the entry point, destination checks one
  // by one): more zones than requests in flight keep the client busy; the client caps what is in flight.
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

/**
 * A cause every call shares (credentials refused, no API at the base URL) stops the run: its one
 * message says how many zones and accounts it stopped before they were planned.
 */
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
