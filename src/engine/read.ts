// Reading: the live state of every owned kind of every zone (zones concurrently, under the client's one rate
// limiter), as the pure planner (plan/planner.ts) takes it.
import pLimit from "p-limit";
import type { CloudflareClient } from "../cloudflare/index.js";
import { AnswerShapeError, ApiError, NetworkError, RunStoppedError } from "../errors.js";
import {
  fileView,
  fingerprint,
  unexpectedAnswer,
  type LiveState,
  type ZoneLive,
  planUnits,
  unitPathPrefix,
} from "../plan/index.js";
import {
  type ReadContext,
  type ResourceKind,
  type DesiredState,
  type DesiredZone,
  RESOURCE_KINDS,
} from "../sections/index.js";
import { readOnly } from "../secrets/index.js";

/** Zones read at once per request the client may have in flight. */
const ZONES_PER_REQUEST_SLOT = 4;

export interface ReadOptions {
  client: CloudflareClient;
  desired: DesiredState;
  parallelism?: number;
  kinds?: readonly ResourceKind[];
  base?: DesiredState;
  /** Progress lines for stderr. */
  progress?: (line: string) => void;
  onZoneDone?: (done: number, total: number) => void;
  now?: () => Date;
}

export function unitLimiter(
  client: CloudflareClient,
  parallelism = 8,
): (unit: PlanUnitRef) => ReturnType<typeof pLimit> {
  const lanes = new Map<number, ReturnType<typeof pLimit>>();
  return (unit) => {
    const lane = client.lane?.(unitPathPrefix(unit)) ?? 0;
    let limit = lanes.get(lane);
    if (!limit) lanes.set(lane, (limit = pLimit(ZONES_PER_REQUEST_SLOT * Math.max(1, parallelism))));
    return limit;
  };
}

type PlanUnitRef = Parameters<typeof unitPathPrefix>[0];

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

export function isReportable(err: unknown): err is ApiError | NetworkError | AnswerShapeError {
  return err instanceof ApiError || err instanceof NetworkError || err instanceof AnswerShapeError;
}

/** Reads every kind the zone owns, concurrently: the live state the planner takes. */
export async function readZone(
  ctx: ReadContext,
  zone: DesiredZone,
  kinds: readonly ResourceKind[] = RESOURCE_KINDS,
): Promise<ZoneLive> {
  const owned = kinds.filter((k) => k.owns(zone));
  const live: ZoneLive = {
    zone_id: zone.zone_id,
    ...(zone.scope ? { scope: zone.scope } : {}),
    kinds: {},
    fingerprints: {},
    errors: [],
  };
  const results = await Promise.allSettled(owned.map((k) => k.read(ctx, zone)));
  // Fingerprinted in template syntax and as a plan file shows it: no value, no credential.
  const secrets = ctx.desired.secrets;
  // A stopped run (a signal, its deadline, a wait beyond the cap) ends the command, not only this zone.
  for (const r of results) if (r.status === "rejected" && r.reason instanceof RunStoppedError) throw r.reason;
  results.forEach((r, i) => {
    const kind = owned[i]!;
    if (r.status === "rejected") {
      const why =
        r.reason instanceof AnswerShapeError
          ? `${r.reason.message}; nothing was changed`
          : isReportable(r.reason)
            ? r.reason.message
            : unexpectedAnswer(r.reason);
      live.errors.push(`reading ${kind.name}: ${why}`);
      return;
    }
    live.kinds[kind.name] = r.value.live;
    for (const [identity, resource] of Object.entries(r.value.resources)) {
      live.fingerprints[`${kind.name}/${identity}`] = fingerprint(
        fileView(secrets.templatize(resource, zone), ctx.desired),
      );
    }
  });
  return live;
}

/** Reads every zone (I/O only): the live state `plan(desired, live)` takes. */
export async function readLive(opts: ReadOptions): Promise<LiveState> {
  const kinds = opts.kinds ?? RESOURCE_KINDS;
  const ctx = createReadContext(readOnly(opts.client), opts.desired);
  const limitOf = unitLimiter(opts.client, opts.parallelism);
  const read_at = (opts.now?.() ?? new Date()).toISOString();
  const zones = await Promise.all(
    planUnits(opts.desired, kinds).map(({ unit, kinds: unitKinds }) =>
      limitOf(unit)(() => readZone(ctx, unit as DesiredZone, unitKinds)),
    ),
  );
  return { read_at, zones };
}
