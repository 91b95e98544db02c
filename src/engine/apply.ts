// Apply: execute a plan's operations in order. Zones are independent and run concurrently; inside a
// zone the changes run one after another, and the first failure stops that zone so nothing is written
// on top of a state we no longer know. The report says what was done, what failed and what was not.
import pLimit from "p-limit";
import type { CloudflareClient } from "../cloudflare/types.js";
import { ApplyError, NetworkError, RuntimeError, ZoneformError } from "../errors.js";
import type { Change, Plan } from "../model/plan.js";
import { ZONES_PER_REQUEST_SLOT } from "./reconcile.js";

export interface ApplyReport {
  done: string[];
  failed: string[];
  notDone: string[];
}

export interface ApplyOptions {
  client: CloudflareClient;
  parallelism?: number;
  progress?: (line: string) => void;
}

const SIGN: Record<Change["kind"], string> = { create: "+", update: "~", replace: "-/+", delete: "-" };

export function describeChange(zoneLabel: string, c: Change): string {
  return `${zoneLabel}: ${SIGN[c.kind]} ${c.resource} "${c.identity}"`;
}

function failureText(err: unknown): string {
  if (err instanceof NetworkError && err.info.ambiguous) {
    return `${err.message} (the write may or may not have happened; run plan again: zoneform re-reads and will not create it twice)`;
  }
  return err instanceof Error ? err.message : String(err);
}

export async function applyPlan(plan: Plan, opts: ApplyOptions): Promise<ApplyReport> {
  const report: ApplyReport = { done: [], failed: [], notDone: [] };
  // Inside a zone the calls go one at a time, so as many zones as requests in flight would leave the
  // client idle between a zone's calls; the client's own limit caps what is really in flight.
  const limit = pLimit(ZONES_PER_REQUEST_SLOT * Math.max(1, opts.parallelism ?? 8));
  await Promise.all(
    plan.zones.map((zone) =>
      limit(async () => {
        const label = zone.name ?? zone.zone_id;
        let failed = false;
        for (const change of zone.changes) {
          const what = describeChange(label, change);
          if (failed) {
            report.notDone.push(what);
            continue;
          }
          try {
            for (const op of change.operations) {
              await opts.client.request(op.method, op.path, { query: op.query, body: op.body });
            }
            report.done.push(what);
            opts.progress?.(`${what}: done`);
          } catch (err) {
            if (!(err instanceof ZoneformError)) throw err;
            failed = true;
            const line = `${what}: ${failureText(err)}`;
            report.failed.push(line);
            opts.progress?.(`${what}: FAILED`);
          }
        }
      }),
    ),
  );
  return report;
}

/**
 * Throws when a change failed: ApplyError (exit 4) when some changes were made before, a plain error
 * (exit 1) when nothing was written at all.
 */
export function assertApplied(report: ApplyReport): void {
  if (report.failed.length === 0) return;
  if (report.done.length === 0) {
    throw new RuntimeError(
      [`apply failed before any change was made; nothing was written.`, ...report.failed.map((l) => `  failed:      ${l}`)].join("\n"),
    );
  }
  const lines = [
    `apply stopped part-way: ${report.done.length} change(s) made, ${report.failed.length} failed, ${report.notDone.length} not attempted.`,
    ...report.failed.map((l) => `  failed:      ${l}`),
    ...report.notDone.map((l) => `  not done:    ${l}`),
    ...report.done.map((l) => `  done:        ${l}`),
    "Fix the cause and run apply again: it re-reads the zone and makes only what is still missing.",
  ];
  throw new ApplyError(lines.join("\n"), report);
}
