// Apply: execute a plan's operations in order. Zones are independent and run concurrently; inside a
// zone the changes run one after another, and the first failure stops that zone so nothing is written
// on top of a state we no longer know. The report says what was done, what failed and what was not.
import pLimit from "p-limit";
import type { CloudflareClient } from "../cloudflare/types.js";
import { ApiError, ApplyError, NetworkError, RuntimeError, ZoneformError } from "../errors.js";
import type { Change, Plan } from "../model/plan.js";
import { printable } from "../safe-text.js";
import { ZONES_PER_REQUEST_SLOT } from "./reconcile.js";

export interface ApplyReport {
  done: string[];
  failed: string[];
  notDone: string[];
  /** Failed changes whose writes may have happened (a write sent with no clear answer, or part of a change made). */
  uncertain: string[];
}

export interface ApplyOptions {
  client: CloudflareClient;
  parallelism?: number;
  progress?: (line: string) => void;
}

const SIGN: Record<Change["kind"], string> = { create: "+", update: "~", replace: "-/+", delete: "-" };

/** One line per change in progress and reports: names from the API or the file shown escaped. */
export function describeChange(zoneLabel: string, c: Change): string {
  return printable(`${zoneLabel}: ${SIGN[c.kind]} ${c.resource} "${c.identity}"`);
}

/**
 * Whether a failed write may nevertheless have happened: it was sent and no clear answer came back (a
 * dropped connection, a timeout), or the API answered 5xx, which says nothing of whether it was done.
 */
export function mayHaveWritten(method: string, err: unknown): boolean {
  if (method === "GET") return false;
  if (err instanceof NetworkError) return err.info.ambiguous || (err.info.retries ?? 0) > 0;
  // A write retried (after a 5xx or a dropped connection) may have been made by an earlier attempt.
  return err instanceof ApiError && (err.status >= 500 || (err.info.retries ?? 0) > 0);
}

/** A DELETE answered "not found" by the API itself: what it was to remove is gone (it may be a retry's answer). */
function alreadyGone(method: string, err: unknown): boolean {
  return method === "DELETE" && err instanceof ApiError && err.isNotFound();
}

/**
 * Before a create: nothing with its identity may have appeared since the plan read the zone (a second
 * apply running elsewhere). If something did, the zone stops instead of making a duplicate.
 */
async function assertStillAbsent(client: CloudflareClient, zoneLabel: string, change: Change): Promise<void> {
  const { path, key, value } = change.expect_absent!;
  const items = await client.request<unknown>("GET", path);
  const found = Array.isArray(items) && items.some((i) => i !== null && typeof i === "object" && (i as Record<string, unknown>)[key] === value);
  if (found) {
    throw new RuntimeError(
      `${change.resource} "${change.identity}" now exists in ${zoneLabel}, made by someone else since the plan read the zone (another apply?); ` +
        "it was not created again, and nothing more is written to this zone. Run plan again.",
    );
  }
}

function failureText(err: unknown, uncertain: boolean): string {
  const message = err instanceof Error ? err.message : String(err);
  return uncertain ? `${message} (this write may have been made: run plan again to see the live state)` : message;
}

export async function applyPlan(plan: Plan, opts: ApplyOptions): Promise<ApplyReport> {
  const report: ApplyReport = { done: [], failed: [], notDone: [], uncertain: [] };
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
          let made = 0;
          let method = "GET";
          try {
            if (change.expect_absent) await assertStillAbsent(opts.client, label, change);
            for (const op of change.operations) {
              method = op.method;
              try {
                await opts.client.request(op.method, op.path, { query: op.query, body: op.body });
              } catch (err) {
                if (!alreadyGone(op.method, err)) throw err;
              }
              made += 1;
            }
            report.done.push(what);
            opts.progress?.(`${what}: done`);
          } catch (err) {
            if (!(err instanceof ZoneformError)) throw err;
            failed = true;
            // A replacement whose create went through but whose delete failed has written something too.
            const uncertain = made > 0 || mayHaveWritten(method, err);
            const line = `${what}: ${failureText(err, uncertain)}`;
            report.failed.push(line);
            if (uncertain) report.uncertain.push(line);
            opts.progress?.(`${what}: FAILED`);
          }
        }
      }),
    ),
  );
  return report;
}

/**
 * Throws when a change failed: ApplyError (exit 4) when something was or may have been written, a plain
 * error (exit 1) only when it is certain that nothing was written at all.
 */
export function assertApplied(report: ApplyReport): void {
  if (report.failed.length === 0) return;
  if (report.done.length === 0 && report.uncertain.length === 0) {
    throw new RuntimeError(
      [`apply failed before any change was made; nothing was written.`, ...report.failed.map((l) => `  failed:      ${l}`)].join("\n"),
    );
  }
  const maybe = report.uncertain.length > 0 ? ` (${report.uncertain.length} of them may have been written)` : "";
  const lines = [
    `apply stopped part-way: ${report.done.length} change(s) made, ${report.failed.length} failed${maybe}, ${report.notDone.length} not attempted.`,
    ...report.failed.map((l) => `  failed:      ${l}`),
    ...report.notDone.map((l) => `  not done:    ${l}`),
    ...report.done.map((l) => `  done:        ${l}`),
    "Fix the cause and run apply again: it re-reads the zone and makes only what is still missing.",
  ];
  throw new ApplyError(lines.join("\n"), report);
}
