// Apply: execute a plan's operations. Zones are independent and run concurrently; inside a zone the
// changes run in rounds of true dependencies (see `rounds`), and a failure starts nothing new in that
// zone so nothing is written on top of a state we no longer know. The report says what was done, what
// failed, what may have been written and what was not attempted.
import pLimit from "p-limit";
import type { CloudflareClient } from "../cloudflare/types.js";
import { isTimeoutError } from "../cloudflare/retry.js";
import { AnswerShapeError, ApiError, ApplyError, NetworkError, RuntimeError, ZoneformError } from "../errors.js";
import type { Change, Finder, Operation, Plan } from "../model/plan.js";
import { SIGN } from "../plan/render/format.js";
import { printable } from "../safe-text.js";
import { RESOURCE_KINDS } from "../sections/index.js";
import { ZONES_PER_REQUEST_SLOT } from "./reconcile.js";

export interface ApplyReport {
  done: string[];
  failed: string[];
  notDone: string[];
  /** Failed changes whose writes may have happened (a write sent with no clear answer, or part of a change made). */
  uncertain: string[];
  /** Stopped by an interrupt: the changes not attempted were left for the next run. */
  interrupted?: boolean;
}

export interface ApplyOptions {
  client: CloudflareClient;
  parallelism?: number;
  progress?: (line: string) => void;
  /** Asked before each change: once it says stop, nothing new is started (Ctrl+C). */
  shouldStop?: () => boolean;
  /** Told when a change starts and ends, so an interrupted run can say what was in flight. */
  onChange?: (what: string, state: "start" | "end") => void;
}

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

/** What `readFinderPath` gives for a path the API itself answers 404: an entry point not made yet. */
const NOT_FOUND = Symbol("not found");

/** GET a finder's path; an entry point that does not exist holds no rule (NOT_FOUND). */
async function readFinderPath(client: CloudflareClient, path: string): Promise<unknown> {
  try {
    return await client.request<unknown>("GET", path);
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound()) return NOT_FOUND;
    throw err;
  }
}

/**
 * The item `finder` describes, if `GET finder.path` shows one (null when it shows none). With `reads`,
 * one read of a path serves every check of it in the zone (the checks before its creates); without,
 * the path is read afresh (after a lost answer, what is there now is what counts).
 */
async function findCreated(client: CloudflareClient, finder: Finder, reads?: Map<string, Promise<unknown>>): Promise<Record<string, unknown> | null> {
  let pending = reads?.get(finder.path);
  if (!pending) {
    pending = readFinderPath(client, finder.path);
    reads?.set(finder.path, pending);
  }
  const answer = await pending;
  if (answer === NOT_FOUND) return null;
  // An entry point without rules may leave `rules` out; any other shape is not taken as "none there".
  const entry = answer !== null && typeof answer === "object" && !Array.isArray(answer) ? (answer as Record<string, unknown>) : undefined;
  const items = finder.list === undefined ? answer : entry && (entry[finder.list] ?? []);
  if (!Array.isArray(items)) {
    const expected = finder.list === undefined ? "a list" : `an object with a list "${finder.list}"`;
    throw new AnswerShapeError(`the API answered GET ${finder.path} with ${JSON.stringify(answer)?.slice(0, 60) ?? "nothing"}, expected ${expected}`);
  }
  const hit = items.find(
    (i) => i !== null && typeof i === "object" && Object.entries(finder.match).every(([k, v]) => (i as Record<string, unknown>)[k] === v),
  );
  return (hit as Record<string, unknown> | undefined) ?? null;
}

/**
 * Before a create: nothing like what it makes may have appeared since the plan read the zone (a second
 * apply running elsewhere). If something did, the zone stops instead of making a duplicate.
 */
async function assertStillAbsent(client: CloudflareClient, zoneLabel: string, change: Change, finder: Finder, reads?: Map<string, Promise<unknown>>): Promise<void> {
  if (await findCreated(client, finder, reads)) {
    throw new RuntimeError(
      `${change.resource} "${change.identity}" now exists in ${zoneLabel}, made by someone else since the plan read the zone (another apply?); ` +
        "it was not created again, and nothing more is written to this zone. Run plan again.",
    );
  }
}

/** How many times a create whose outcome stays unclear is sent (looked for in between): as a retried call. */
const CREATE_ATTEMPTS = 7;

/**
 * Sends one call. A POST whose answer leaves it unclear whether it was carried out (a dropped
 * connection, a 5xx) is not simply reported: what it creates is looked for, adopted when it is there,
 * and the POST sent again only when it is not, so one apply converges without duplicates.
 */
async function send(client: CloudflareClient, op: Operation, log?: (line: string) => void): Promise<{ how: "sent" | "adopted"; result?: unknown }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { how: "sent", result: await client.request<unknown>(op.method, op.path, { query: op.query, body: op.body }) };
    } catch (err) {
      if (alreadyGone(op.method, err)) return { how: "sent" };
      if (op.method !== "POST" || !op.finds || !mayHaveWritten(op.method, err) || attempt >= CREATE_ATTEMPTS) throw err;
      // A POST that timed out may still be running on the server: give it time before looking, and
      // never send it again on the strength of not finding it yet.
      const stillRunning = err instanceof NetworkError && isTimeoutError(err.info.cause);
      if (stillRunning) await sleep(TIMEOUT_GRACE_MS);
      const found = await findCreated(client, op.finds);
      if (found) {
        log?.(`POST ${op.path}: the answer was lost, but what it creates is there: adopted`);
        return { how: "adopted", result: found };
      }
      if (stillRunning) throw err;
      log?.(`POST ${op.path}: the answer was lost and nothing was created: sending it again`);
    }
  }
}

/** How long a POST that timed out is given to land before apply looks for what it creates. */
const TIMEOUT_GRACE_MS = 2_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function failureText(err: unknown, uncertain: boolean): string {
  const message = err instanceof Error ? err.message : String(err);
  return uncertain ? `${message} (this write may have been made: run plan again to see the live state)` : message;
}

/** The outcome of one change: made (with each call's answer), or failed (and whether it may have written). */
type ChangeOutcome = { ok: true; results: unknown[]; adopted: boolean } | { ok: false; line: string; uncertain: boolean };

/**
 * Makes one change's calls in order: a create first checks nothing like it appeared since the plan,
 * a POST whose answer was lost is looked for (see `send`). Every write zoneform makes goes through
 * here, the guided commands' too, so they all report the same way.
 */
async function runChange(
  client: CloudflareClient,
  zoneLabel: string,
  change: Change,
  what: string,
  log?: (line: string) => void,
  reads?: Map<string, Promise<unknown>>,
): Promise<ChangeOutcome> {
  let made = 0;
  let method = "GET";
  const results: unknown[] = [];
  try {
    const creates = change.kind === "create" ? change.operations.find((op) => op.method === "POST" && op.finds) : undefined;
    if (creates) await assertStillAbsent(client, zoneLabel, change, creates.finds!, reads);
    let adopted = false;
    for (const op of change.operations) {
      method = op.method;
      const sent = await send(client, op, log);
      adopted = sent.how === "adopted" || adopted;
      results.push(sent.result);
      made += 1;
    }
    return { ok: true, results, adopted };
  } catch (err) {
    if (!(err instanceof ZoneformError)) throw err;
    // A replacement whose create went through but whose delete failed has written something too.
    const uncertain = made > 0 || mayHaveWritten(method, err);
    return { ok: false, line: `${what}: ${failureText(err, uncertain)}`, uncertain };
  }
}

/**
 * How a zone's changes run: only true dependencies are sequenced. Deletes come after everything else
 * (make before break), and not at all if anything before failed. Within each of those two rounds,
 * kinds are independent and run side by side. The changes of a kind whose changes each write an
 * object of their own (`independentChanges`: policies, jobs, hostnames) run side by side too; those
 * of any other kind stay in plan order, one after the other: two rules written into one entry point
 * at once could race for its version, and their order is the order they run in. Each chain of the
 * result runs its changes in order; the chains of a round run at once.
 */
export function rounds(changes: readonly Change[], independent: (resource: string) => boolean = isIndependent): Change[][][] {
  const chains = (list: readonly Change[]) => {
    const out: Change[][] = [];
    const byKind = new Map<string, Change[]>();
    for (const c of list) {
      if (independent(c.resource)) out.push([c]);
      else {
        let chain = byKind.get(c.resource);
        if (!chain) byKind.set(c.resource, (chain = [])), out.push(chain);
        chain.push(c);
      }
    }
    return out;
  };
  return [chains(changes.filter((c) => c.kind !== "delete")), chains(changes.filter((c) => c.kind === "delete"))].filter((r) => r.length > 0);
}

const INDEPENDENT = new Set(RESOURCE_KINDS.filter((k) => k.independentChanges).map((k) => k.name));
const isIndependent = (resource: string): boolean => INDEPENDENT.has(resource);

export async function applyPlan(plan: Plan, opts: ApplyOptions): Promise<ApplyReport> {
  const report: ApplyReport = { done: [], failed: [], notDone: [], uncertain: [] };
  // Zones run concurrently and a zone's independent changes too; the client's one limit caps what is
  // really in flight, so this only bounds the zones started at once.
  const limit = pLimit(ZONES_PER_REQUEST_SLOT * Math.max(1, opts.parallelism ?? 8));
  await Promise.all(
    plan.zones.map((zone) =>
      limit(async () => {
        const label = zone.name ?? zone.zone_id;
        let failed = false;
        // One read of a list serves the checks before all the zone's creates into it.
        const checks = new Map<string, Promise<unknown>>();
        const run = async (change: Change) => {
          const what = describeChange(label, change);
          if (!failed && opts.shouldStop?.()) report.interrupted = true;
          if (failed || report.interrupted) {
            report.notDone.push(what);
            return;
          }
          opts.onChange?.(what, "start");
          try {
            const outcome = await runChange(opts.client, label, change, what, opts.progress, checks);
            if (outcome.ok) {
              report.done.push(outcome.adopted ? `${what} (its answer was lost; found made and adopted)` : what);
              opts.progress?.(`${what}: done`);
            } else {
              // Nothing new starts in this zone: a state zoneform no longer knows is not written on.
              failed = true;
              report.failed.push(outcome.line);
              if (outcome.uncertain) report.uncertain.push(outcome.line);
              opts.progress?.(`${what}: FAILED`);
            }
          } finally {
            opts.onChange?.(what, "end");
          }
        };
        for (const round of rounds(zone.changes)) {
          await Promise.all(round.map(async (chain) => {
            for (const change of chain) await run(change);
          }));
        }
      }),
    ),
  );
  return report;
}

/**
 * One change outside a plan (a guided command's write: the WAF migration switch, an ownership
 * challenge), made and reported exactly as apply makes and reports its changes. Resolves with the
 * answers of its calls; throws as `assertApplied` does (exit 1 nothing written, 4 maybe written).
 */
export async function applyOne(client: CloudflareClient, zoneLabel: string, change: Change, log?: (line: string) => void): Promise<unknown[]> {
  const what = describeChange(zoneLabel, change);
  const outcome = await runChange(client, zoneLabel, change, what, log);
  if (outcome.ok) return outcome.results;
  assertApplied({ done: [], failed: [outcome.line], notDone: [], uncertain: outcome.uncertain ? [outcome.line] : [] });
  return [];
}

/**
 * Throws when a change failed: ApplyError (exit 4) when something was or may have been written, a plain
 * error (exit 1) only when it is certain that nothing was written at all.
 */
export function assertApplied(report: ApplyReport): void {
  if (report.interrupted) {
    const lines = [
      `apply interrupted: ${report.done.length} change(s) made, ${report.failed.length} failed, ${report.notDone.length} not attempted (nothing new was started after the interrupt; the calls in flight were let finish).`,
      ...report.failed.map((l) => `  failed:      ${l}`),
      ...report.notDone.map((l) => `  not done:    ${l}`),
      ...report.done.map((l) => `  done:        ${l}`),
      "Run apply again to make the rest: it re-reads the zones and makes only what is still missing.",
    ];
    throw new ApplyError(lines.join("\n"), report);
  }
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
