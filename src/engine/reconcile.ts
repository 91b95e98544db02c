// Reconcile: read the live state of every owned kind of every zone (zones concurrently, under the
// client's one rate limiter), diff it against the file and build the ordered plan. No writes.
import pLimit from "p-limit";
import type { CloudflareClient } from "../cloudflare/types.js";
import { AnswerShapeError, ApiError, NetworkError } from "../errors.js";
import type { DesiredState, DesiredZone } from "../model/desired.js";
import type { Change, Plan, ZonePlan } from "../model/plan.js";
import { fingerprint } from "../plan/fingerprint.js";
import { orderChanges } from "../plan/order.js";
import { fileRedactor } from "../plan/secrets.js";
import { summariseZones } from "../plan/summary.js";
import { RESOURCE_KINDS } from "../resources/index.js";
import type { ReadContext, ResourceKind } from "../resources/types.js";

/** Zones read at once per request the client may have in flight. */
export const ZONES_PER_REQUEST_SLOT = 4;

export interface ReconcileOptions {
  client: CloudflareClient;
  desired: DesiredState;
  /** Requests in flight (--parallelism); up to four times as many zones are read at once. */
  parallelism?: number;
  kinds?: ResourceKind[];
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

/**
 * Reading and diffing take apart what the API answered: an answer of an unexpected shape (a field of
 * the wrong type, an item that is not an object) surfaces as a TypeError there. That is the API's
 * answer at fault as far as the user can tell, so it fails the zone with what was read, not the run.
 */
function unexpectedAnswer(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return `the API's answer is not in the shape zoneform expects (${message}); nothing was changed`;
}

/**
 * The zone as its file declares it, for a saved plan to re-plan: as written (`${env:…}` kept) when it
 * came from a file; a desired state built in code carries its normalised form, its env values put
 * back as references.
 */
function declaredZone(zone: DesiredZone, desired: DesiredState): unknown {
  if (zone.declared) return zone.declared;
  const { source: _source, declared: _declared, ...rest } = zone;
  return fileRedactor(desired).redactDeep(rest);
}

export interface ZoneReading {
  fingerprints: Record<string, string>;
  reads: Array<{ kind: ResourceKind; live: unknown }>;
  errors: string[];
}

/** Reads every kind the zone owns, concurrently. */
export async function readZone(ctx: ReadContext, zone: DesiredZone, kinds: ResourceKind[]): Promise<ZoneReading> {
  const owned = kinds.filter((k) => k.owns(zone));
  const fingerprints: Record<string, string> = {};
  const errors: string[] = [];
  const reads: ZoneReading["reads"] = [];
  const results = await Promise.allSettled(owned.map((k) => k.read(ctx, zone)));
  results.forEach((r, i) => {
    const kind = owned[i]!;
    if (r.status === "rejected") {
      const why = r.reason instanceof AnswerShapeError ? `${r.reason.message}; nothing was changed` : isReportable(r.reason) ? r.reason.message : unexpectedAnswer(r.reason);
      errors.push(`reading ${kind.name}: ${why}`);
      return;
    }
    reads.push({ kind, live: r.value.live });
    for (const [identity, resource] of Object.entries(r.value.resources)) {
      fingerprints[`${kind.name}/${identity}`] = fingerprint(resource);
    }
  });
  return { fingerprints, reads, errors };
}

export async function planZone(ctx: ReadContext, zone: DesiredZone, kinds: ResourceKind[]): Promise<ZonePlan> {
  const reading = await readZone(ctx, zone, kinds);
  const changes: Change[] = [];
  const errors = [...reading.errors];
  const warnings: string[] = [];
  for (const { kind, live } of reading.reads) {
    let result: ReturnType<typeof kind.diff>;
    try {
      result = kind.diff(zone, live);
    } catch (err) {
      errors.push(`comparing ${kind.name}: ${unexpectedAnswer(err)}`);
      continue;
    }
    changes.push(...result.changes);
    errors.push(...(result.errors ?? []));
    warnings.push(...(result.warnings ?? []));
  }
  const order = new Map(kinds.map((k) => [k.name, k.order]));
  const ordered = orderChanges(changes, (r) => order.get(r) ?? 0);
  if (errors.length === 0) {
    for (const kind of kinds.filter((k) => k.check && k.owns(zone))) {
      try {
        errors.push(...(await kind.check!(ctx, zone, ordered)));
      } catch (err) {
        if (!isReportable(err)) throw err;
        errors.push(`checking ${kind.name}: ${err.message}`);
      }
    }
  }
  return {
    zone_id: zone.zone_id,
    ...(zone.name ? { name: zone.name } : {}),
    changes: ordered,
    fingerprints: reading.fingerprints,
    errors,
    warnings,
  };
}

export async function reconcile(opts: ReconcileOptions): Promise<Plan> {
  const kinds = opts.kinds ?? RESOURCE_KINDS;
  const ctx = createReadContext(opts.client, opts.desired);
  // A zone waits on its own chain (the OWASP ruleset after the list, destination checks one by one):
  // more zones than requests in flight keep the client busy; the client caps what is in flight.
  const limit = pLimit(ZONES_PER_REQUEST_SLOT * Math.max(1, opts.parallelism ?? 8));
  let done = 0;
  const zones = await Promise.all(
    opts.desired.zones.map((zone) =>
      limit(async () => {
        const zp = await planZone(ctx, zone, kinds);
        done += 1;
        opts.progress?.(`read ${zone.name ?? zone.zone_id} (${done}/${opts.desired.zones.length})`);
        opts.onZoneDone?.(done, opts.desired.zones.length);
        return { ...zp, desired: declaredZone(zone, opts.desired) };
      }),
    ),
  );
  return {
    format_version: 2,
    created_at: (opts.now?.() ?? new Date()).toISOString(),
    ...(opts.desired.account_id ? { account_id: opts.desired.account_id } : {}),
    safety: { max_deletes: opts.desired.safety.max_deletes },
    zones,
    summary: summariseZones(zones),
  };
}
