// Execute: run a verified plan's operations (the engine's last step; engine/apply.ts verifies first,
// and only it calls executePlan with a plan). Zones are independent and run concurrently; inside a zone the
// changes run in rounds of true dependencies (see `rounds`), and a failure starts nothing new in that
// zone so nothing is written on top of a state we no longer know. The report says what was done, what
// failed, what may have been written and what was not attempted.
import { type CloudflareClient, isTimeoutError } from "../cloudflare/index.js";
import { ApiError, ApplyError, EXIT, NetworkError, RunStoppedError, RuntimeError, ZoneformError } from "../errors.js";
import type { Change, Finder, Operation, Plan, SecretValues } from "../model/index.js";
import { SIGN, shownTemplate, unitName } from "../plan/index.js";
import { NO_SECRETS } from "../secrets/index.js";
import { printable } from "../safe-text.js";
import { RESOURCE_KINDS } from "../sections/index.js";
import {
  appearedSincePlan,
  idList,
  idOf,
  lookForCreated,
  MAX_CANDIDATE_READS,
  type LostCreateLook,
} from "./lost-create.js";
import { unitLimiter } from "./read.js";

export interface ApplyReport {
  done: string[];
  failed: string[];
  notDone: string[];
  /** Failed changes whose writes may have happened (a write sent with no clear answer, or part of a change made). */
  uncertain: string[];
  /** Stopped by an interrupt: the changes not attempted were left for the next run. */
  interrupted?: boolean;
  /** Why the client stopped the run (a signal, the deadline, a wait beyond the cap), when it did. */
  stopped?: RunStoppedError;
  /** Ruleset writes Cloudflare checked before the first write (`dry_run=true`; engine/dry-run.ts). */
  checked?: number;
}

export interface ExecuteOptions {
  client: CloudflareClient;
  /** The values the plan's references stand for: put into each call as it is made (default: none). */
  secrets?: SecretValues;
  parallelism?: number;
  progress?: (line: string) => void;
  /**
   * Asked before each change: once it says stop, nothing new is started. The client's stop() does the same, and more:
   * nothing more is sent.
   */
  shouldStop?: () => boolean;
  /** Told when a change starts and ends, so an interrupted run can say what was in flight. */
  onChange?: (what: string, state: "start" | "end") => void;
  /**
   * The report to fill in as changes end (so a caller can read it before executePlan returns); a new one when absent.
   */
  report?: ApplyReport;
}

/** One line per change in progress and reports: names from the API or the file shown escaped. */
export function describeChange(zoneLabel: string, c: Change): string {
  return printable(`${zoneLabel}: ${SIGN[c.kind]} ${c.resource} "${shownTemplate(c.identity)}"`);
}

/**
 * Whether a failed write may nevertheless have happened: it was sent and no clear answer came back (a
 * dropped connection, a timeout), or the API answered 5xx, which says nothing of whether it was done.
 */
function mayHaveWritten(method: string, err: unknown): boolean {
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
 * Before a create: nothing new with its hints may have appeared since the plan read the zone (a second
 * apply running elsewhere). If something did, the zone stops instead of making a duplicate. An object
 * that was already there when the plan read the list and only shares a hint is no reason to stop.
 */
async function assertStillAbsent(
  client: CloudflareClient,
  zoneLabel: string,
  change: Change,
  finder: Finder,
  reads?: Map<string, Promise<unknown[]>>,
): Promise<void> {
  const appeared = await appearedSincePlan(client, finder, reads);
  if (appeared.length > 0) {
    throw new RuntimeError(
      `${change.resource} "${shownTemplate(change.identity)}" now exists in ${zoneLabel} (id ${idList(appeared)}), ` +
        "made by someone else since the plan read the zone (another apply?); " +
        "it was not created again, and nothing more is written to this zone. Run plan again.",
    );
  }
}

/** A POST whose answer was lost, after which what is there does not say whether it made something: exit 4. */
class MaybeCreatedError extends RuntimeError {}

/**
 * How many times a create is sent again once a complete re-read of its list shows nothing was made: after an
 * error answer (5xx, 409, 429), twice; after no answer at all (a reset, a timeout), once.
 */
const RESENDS = { answered: 2, lost: 1 } as const;

/** Whether a create failed with an answer (the server said so) or without one (it may still be running). */
function failureKind(err: unknown): "answered" | "lost" {
  return err instanceof ApiError ? "answered" : "lost";
}

/** Whether a failed create may be looked for and sent again: a POST with its finder, whose outcome is unclear. */
function retriableCreate(op: Operation, err: unknown): op is Operation & { finds: Finder } {
  if (op.method !== "POST" || !op.finds) return false;
  if (err instanceof ApiError && (err.status === 409 || err.status === 429)) return true;
  return mayHaveWritten(op.method, err);
}

/**
 * Sends one call. A create whose outcome is unclear (an error answer, or none) is looked for: the whole list
 * read again, each new object by id (lost-create.ts). One new object equal to what was sent is adopted; none
 * at all, and the create is sent again (RESENDS); anything else, or a list that cannot be read whole, stops
 * the zone with the candidates' ids (exit 4), as nothing more is written on a state zoneform does not know.
 */
async function send(
  client: CloudflareClient,
  op: Operation,
  log?: (line: string) => void,
): Promise<{ how: "sent" | "adopted"; result?: unknown }> {
  const sent = { answered: 0, lost: 0 };
  for (;;) {
    try {
      return {
        how: "sent",
        result: await client.request<unknown>(op.method, op.path, { query: op.query, body: op.body }),
      };
    } catch (err) {
      if (alreadyGone(op.method, err)) return { how: "sent" };
      if (!retriableCreate(op, err)) throw err;
      const kind = failureKind(err);
      const what = kind === "answered" ? `it was answered ${lostCause(err)}` : "the answer was lost";
      const lostText = `POST ${op.path}: ${kind === "answered" ? what : `${what} (${lostCause(err)})`}`;
      const look = await lookAfter(client, op, err, lostText);
      if (look.equal.length === 1 && !look.tooMany) {
        const id = idOf(look.equal[0]!);
        log?.(`POST ${op.path}: ${what}, but what it creates is there: adopted${id ? ` (id ${id})` : ""}`);
        return { how: "adopted", result: look.equal[0] };
      }
      if (look.candidates.length > 0) throw ambiguous(look, lostText);
      if (sent[kind] >= RESENDS[kind])
        throw new MaybeCreatedError(
          `${lostText}; nothing new with its hints is in the list, after ${sent[kind] + 1} sends: it was not sent ` +
            "again, and nothing more is written to this zone. Run plan again.",
        );
      sent[kind] += 1;
      log?.(`${lostText}; the whole list, read again, shows nothing was made: sent again`);
    }
  }
}

/** The list read again after a create's unclear failure (a bounded wait first when no answer came). */
async function lookAfter(
  client: CloudflareClient,
  op: Operation & { finds: Finder },
  err: unknown,
  lostText: string,
): Promise<LostCreateLook> {
  // A create that timed out may still be running on the server: give it time before looking.
  const stillRunning = err instanceof NetworkError && isTimeoutError(err.info.cause);
  if (stillRunning && !client.stopped?.()) await sleep(GRACE_MS);
  try {
    const stopped = client.stopped?.();
    if (stopped) throw stopped;
    return await lookForCreated(client, op);
  } catch (lookErr) {
    const why =
      lookErr instanceof RunStoppedError
        ? `the run was stopped (${lookErr.message}) before zoneform could look whether it was created`
        : `zoneform could not read the whole list to look whether it was created (${
            lookErr instanceof Error ? lookErr.message : lookErr
          })`;
    throw new MaybeCreatedError(
      `${lostText}; ${why}: it may have been. It was not sent again, and nothing more is written to this ` +
        "zone. Run plan again to see the live state.",
    );
  }
}

/** New objects with the create's hints that are not exactly one equal to what was sent: nothing is adopted. */
function ambiguous(look: LostCreateLook, lostText: string): MaybeCreatedError {
  const why = look.tooMany
    ? `${look.candidates.length} new objects with its hints, more than the ${MAX_CANDIDATE_READS} zoneform reads`
    : look.equal.length > 1
      ? `${look.equal.length} new objects equal what was sent`
      : "no new object equals what was sent";
  return new MaybeCreatedError(
    `${lostText}; it may have been created: ${why} (new since the plan, with its hints: id ` +
      `${idList(look.candidates)}). None was adopted and nothing more is written to this zone (it was not ` +
      "sent again); look at them, delete the unwanted ones, then run plan again.",
  );
}

/** What became of a write's answer, in a few words: the status, or what happened to the connection. */
function lostCause(err: unknown): string {
  if (err instanceof ApiError) return `HTTP ${err.status}${(err.info.retries ?? 0) > 0 ? " after a retry" : ""}`;
  if (err instanceof NetworkError) return `no answer: ${err.info.cause ?? "the connection was lost"}`;
  return err instanceof Error ? err.message : String(err);
}

/** How long a create that timed out is given to land before apply looks for what it made. */
const GRACE_MS = 2_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function failureText(err: unknown, uncertain: boolean, change?: Change): string {
  const message = err instanceof Error ? err.message : String(err);
  const hints = change ? errorHints(change, err) : [];
  const text = hints.length > 0 ? `${message}. ${hints.join(". ")}` : message;
  return uncertain ? `${text} (this write may have been made: run plan again to see the live state)` : text;
}

const HINTS = new Map(RESOURCE_KINDS.filter((k) => k.errorHints).map((k) => [k.name, k.errorHints!]));

/** The advice the change's kind gives for the API's error codes in `err` (each once, in the answer's order). */
export function errorHints(change: Change, err: unknown): string[] {
  const byCode = HINTS.get(change.resource);
  if (!byCode || !(err instanceof ApiError)) return [];
  const codes = [...new Set(err.info.errors.map((e) => e.code).filter((c): c is number => c !== undefined))];
  return codes.flatMap((c) => (Object.hasOwn(byCode, c) ? [byCode[c]!(change)] : []));
}

/**
 * The outcome of one change: made (with each call's answer), failed (and whether it may have written),
 * or not sent at all because the run was stopped first.
 */
type ChangeOutcome =
  | { ok: true; results: unknown[]; adopted: boolean }
  | { ok: false; line: string; uncertain: boolean }
  | { ok: false; notSent: RunStoppedError };

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
  reads?: Map<string, Promise<unknown[]>>,
): Promise<ChangeOutcome> {
  let made = 0;
  let method = "GET";
  const results: unknown[] = [];
  try {
    const creates =
      change.kind === "create" ? change.operations.find((op) => op.method === "POST" && op.finds) : undefined;
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
    // Stopped before any of its writes went out: not attempted, whatever it read.
    if (err instanceof RunStoppedError && made === 0) return { ok: false, notSent: err };
    // A replacement whose create went through but whose delete failed has written something too.
    const uncertain = made > 0 || mayHaveWritten(method, err) || err instanceof MaybeCreatedError;
    return { ok: false, line: `${what}: ${failureText(err, uncertain, change)}`, uncertain };
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
export function rounds(
  changes: readonly Change[],
  independent: (resource: string) => boolean = isIndependent,
): Change[][][] {
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
  return [
    chains(changes.filter((c) => c.kind !== "delete")),
    chains(changes.filter((c) => c.kind === "delete")),
  ].filter((r) => r.length > 0);
}

const INDEPENDENT = new Set(RESOURCE_KINDS.filter((k) => k.independentChanges).map((k) => k.name));
const isIndependent = (resource: string): boolean => INDEPENDENT.has(resource);

/** Runs a plan's changes as they are: callers verify the plan first (engine/apply.ts). */
export async function executePlan(plan: Plan, opts: ExecuteOptions): Promise<ApplyReport> {
  const report: ApplyReport = opts.report ?? { done: [], failed: [], notDone: [], uncertain: [] };
  // Zones run concurrently and a zone's independent changes too; the client's limits cap what is
  // really in flight, so this only bounds the zones started at once (per token: read.ts unitLimiter).
  const limitOf = unitLimiter(opts.client, opts.parallelism);
  // The one place a planned write gets its values: as the change starts, never before.
  const secrets = opts.secrets ?? NO_SECRETS;
  const withValues = (c: Change): Change => ({
    ...c,
    operations: c.operations.map((op) => secrets.resolveForWrite(op)),
  });
  await Promise.all(
    plan.zones.map((zone) =>
      limitOf(zone)(async () => {
        const label = unitName(zone);
        let failed = false;
        // One read of a list serves the checks before all the zone's creates into it.
        const checks = new Map<string, Promise<unknown[]>>();
        const run = async (change: Change) => {
          const what = describeChange(label, change);
          const stopped = opts.client.stopped?.();
          if (stopped) report.stopped = stopped;
          if (!failed && (opts.shouldStop?.() || stopped)) report.interrupted = true;
          if (failed || report.interrupted) {
            report.notDone.push(what);
            return;
          }
          opts.onChange?.(what, "start");
          try {
            const outcome = await runChange(opts.client, label, withValues(change), what, opts.progress, checks);
            if ("notSent" in outcome) {
              report.stopped = outcome.notSent;
              report.interrupted = true;
              report.notDone.push(what);
            } else if (outcome.ok) {
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
          await Promise.all(
            round.map(async (chain) => {
              for (const change of chain) await run(change);
            }),
          );
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
export async function executeOne(
  client: CloudflareClient,
  zoneLabel: string,
  change: Change,
  log?: (line: string) => void,
): Promise<unknown[]> {
  const what = describeChange(zoneLabel, change);
  const outcome = await runChange(client, zoneLabel, change, what, log);
  if ("notSent" in outcome) throw outcome.notSent;
  if (outcome.ok) return outcome.results;
  assertApplied({ done: [], failed: [outcome.line], notDone: [], uncertain: outcome.uncertain ? [outcome.line] : [] });
  return [];
}

/**
 * Throws when a change failed: ApplyError (exit 4) when something was or may have been written, a plain
 * error (exit 1) only when it is certain that nothing was written at all.
 */
export function assertApplied(report: ApplyReport): void {
  if (report.stopped) {
    const s = report.stopped;
    const maybe = report.uncertain.length > 0 ? ` (${report.uncertain.length} of them may have been written)` : "";
    const lines = [
      `apply stopped: ${s.message}.`,
      `${report.done.length} change(s) made, ${report.failed.length} failed${maybe}, ` +
        `${report.notDone.length} not attempted (nothing was sent after the stop; the requests already sent ` +
        `were let finish).`,
      ...report.failed.map((l) => `  failed:      ${l}`),
      ...report.notDone.map((l) => `  not done:    ${l}`),
      ...report.done.map((l) => `  done:        ${l}`),
      "Run apply again to make the rest: it re-reads the zones and makes only what is still missing.",
    ];
    // A wait beyond the cap or a cause every call shares is an error like any other (4 once something was written); a
    // signal or the deadline keeps its own code.
    const written = report.done.length > 0 || report.uncertain.length > 0;
    const code = s.reason === "wait" || s.reason === "cause" ? (written ? EXIT.partial : EXIT.error) : s.exitCode;
    throw new RunStoppedError(lines.join("\n"), code, s.reason);
  }
  if (report.interrupted) {
    const lines = [
      `apply interrupted: ${report.done.length} change(s) made, ${report.failed.length} failed, ` +
        `${report.notDone.length} not attempted (nothing new was started after the interrupt; the calls in ` +
        `flight were let finish).`,
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
      [
        `apply failed before any change was made; nothing was written.`,
        ...report.failed.map((l) => `  failed:      ${l}`),
      ].join("\n"),
    );
  }
  const maybe = report.uncertain.length > 0 ? ` (${report.uncertain.length} of them may have been written)` : "";
  const lines = [
    `apply stopped part-way: ${report.done.length} change(s) made, ${report.failed.length} failed${maybe}, ` +
      `${report.notDone.length} not attempted.`,
    ...report.failed.map((l) => `  failed:      ${l}`),
    ...report.notDone.map((l) => `  not done:    ${l}`),
    ...report.done.map((l) => `  done:        ${l}`),
    "Fix the cause and run apply again: it re-reads the zone and makes only what is still missing.",
  ];
  throw new ApplyError(lines.join("\n"), report);
}
