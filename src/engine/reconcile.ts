// Reconcile: read the live state of every owned kind of every zone (zones concurrently, under the
// client's one rate limiter), plan it with the pure planner (plan/planner.ts), then run the checks
// that need the API. No writes.
import pLimit from "p-limit";
import type { CloudflareClient } from "../cloudflare/types.js";
import { AnswerShapeError, ApiError, NetworkError, RunStoppedError } from "../errors.js";
import type { DesiredState, DesiredZone } from "../model/desired.js";
import type { Plan, ZonePlan } from "../model/plan.js";
import { fingerprint } from "../plan/fingerprint.js";
import { assemblePlan, planZone, unexpectedAnswer, type LiveState, type ZoneLive } from "../plan/planner.js";
import { RESOURCE_KINDS } from "../sections/index.js";
import type { ReadContext, ResourceKind } from "../sections/types.js";

/** Zones read at once per request the client may have in flight. */
export const ZONES_PER_REQUEST_SLOT = 4;

export interface ReconcileOptions {
  client: CloudflareClient;
  desired: DesiredState;
  /** Requests in flight (--parallelism); up to four times as many zones are read at once. */
  parallelism?: number;
  kinds?: readonly ResourceKind[];
  /** Progress lines for stderr. */
  progress?: (line: string) => void;
  /** Called as each zone has been read and planned: zones done so far, of how many. */
  onZoneDone?: (done: number, total: number) => void;
  now?: () => Date;
}

export function createReadContext(client: CloudflareClient, desired: DesiredState): ReadContext {
  const memo = new Map<string, Promise<unknown>>();
  return {
    client,
    desired,
    memo<T>(key: string, fn: () => Promise<T>): Promise<T> {
      let p = memo.get(key) as Promise<T> | undefined;
      if (!p) {
        p = fn();
        memo.set(key, p);
      }
      return p;
    },
  };
}

/** A failure the user can act on (permissions, missing zone, network) becomes a zone error; bugs propagate. */
function isReportable(err: unknown): err is ApiError | NetworkError | AnswerShapeError {
  return err instanceof ApiError || err instanceof NetworkError || err instanceof AnswerShapeError;
}

/** Reads every kind the zone owns, concurrently: the live state the planner takes. */
export async function readZone(ctx: ReadContext, zone: DesiredZone, kinds: readonly ResourceKind[] = RESOURCE_KINDS): Promise<ZoneLive> {
  const owned = kinds.filter((k) => k.owns(zone));
  const live: ZoneLive = { zone_id: zone.zone_id, kinds: {}, fingerprints: {}, errors: [] };
  const results = await Promise.allSettled(owned.map((k) => k.read(ctx, zone)));
  // A stopped run (a signal, its deadline, a wait beyond the cap) ends the command, not only this zone.
  for (const r of results) if (r.status === "rejected" && r.reason instanceof RunStoppedError) throw r.reason;
  results.forEach((r, i) => {
    const kind = owned[i]!;
    if (r.status === "rejected") {
      const why = r.reason instanceof AnswerShapeError ? `${r.reason.message}; nothing was changed` : isReportable(r.reason) ? r.reason.message : unexpectedAnswer(r.reason);
      live.errors.push(`reading ${kind.name}: ${why}`);
      return;
    }
    live.kinds[kind.name] = r.value.live;
    for (const [identity, resource] of Object.entries(r.value.resources)) {
      live.fingerprints[`${kind.name}/${identity}`] = fingerprint(resource);
    }
  });
  return live;
}

/**
 * The checks that need the API before apply (a Logpush destination is valid, its ownership token is
 * right): a separate, explicit step after planning, whose findings are zone errors.
 */
export async function checkZone(ctx: ReadContext, zone: DesiredZone, zp: ZonePlan, kinds: readonly ResourceKind[] = RESOURCE_KINDS): Promise<ZonePlan> {
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

/** Reads every zone (I/O only): the live state `plan(desired, live)` takes. */
export async function readLive(opts: ReconcileOptions): Promise<LiveState> {
  const kinds = opts.kinds ?? RESOURCE_KINDS;
  const ctx = createReadContext(opts.client, opts.desired);
  const limit = pLimit(ZONES_PER_REQUEST_SLOT * Math.max(1, opts.parallelism ?? 8));
  const read_at = (opts.now?.() ?? new Date()).toISOString();
  const zones = await Promise.all(opts.desired.zones.map((zone) => limit(() => readZone(ctx, zone, kinds))));
  return { read_at, zones };
}

/**
 * Read, plan, check, zone by zone: each zone is planned (purely) as soon as it has been read and its
 * checks run right after, so zones overlap under the client's one rate limiter. No writes.
 */
export async function reconcile(opts: ReconcileOptions): Promise<Plan> {
  const kinds = opts.kinds ?? RESOURCE_KINDS;
  const ctx = createReadContext(opts.client, opts.desired);
  const createdAt = (opts.now?.() ?? new Date()).toISOString();
  // A zone waits on its own chain (the OWASP ruleset after the entry point, destination checks one
  // by one): more zones than requests in flight keep the client busy; the client caps what is in flight.
  const limit = pLimit(ZONES_PER_REQUEST_SLOT * Math.max(1, opts.parallelism ?? 8));
  let done = 0;
  const zones = await withZonesStopped(opts.desired.zones.length, () => done, () => Promise.all(
    opts.desired.zones.map((zone) =>
      limit(async () => {
        const live = await readZone(ctx, zone, kinds);
        const zp = await checkZone(ctx, zone, planZone(opts.desired, zone, live, kinds), kinds);
        done += 1;
        opts.progress?.(`read ${zone.name ?? zone.zone_id} (${done}/${opts.desired.zones.length})`);
        opts.onZoneDone?.(done, opts.desired.zones.length);
        return zp;
      }),
    ),
  ));
  return assemblePlan(opts.desired, zones, createdAt);
}

/**
 * A cause every call shares (credentials refused, no API at the base URL) stops the run: its one
 * message says how many zones it stopped before they were planned.
 */
async function withZonesStopped<T>(total: number, done: () => number, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof RunStoppedError) || err.reason !== "cause") throw err;
    const n = total - done();
    throw new RunStoppedError(
      `${err.message}\nStopped ${n} zone${n === 1 ? "" : "s"}${n < total ? ` of ${total}` : ""} before ${n === 1 ? "it was" : "they were"} planned; nothing was changed.`,
      err.exitCode,
      err.reason,
    );
  }
}
