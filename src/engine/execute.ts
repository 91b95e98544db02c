// Execute: run a verified plan's operations (the engine's last step; only engine/apply.ts calls executePlan).
// Zones run concurrently; inside a zone changes run in rounds of true dependencies, and a failure starts
// nothing new in that zone, so nothing is written on top of a state we no longer know.
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
  uncertain: string[];
  /** Stopped by an interrupt: the changes not attempted were left for the next run. */
  interrupted?: boolean;
  stopped?: RunStoppedError;
  /** Ruleset writes Cloudflare checked before the first write (`dry_run=true`; engine/dry-run.ts). */
  checked?: number;
}

export interface ExecuteOptions {
  client: CloudflareClient;
  secrets?: SecretValues;
  parallelism?: number;
  progress?: (line: string) => void;
  /** Asked before each change: once it says stop, nothing new is started. */
  shouldStop?: () => boolean;
  onChange?: (what: string, state: "start" | "end") => void;
  report?: ApplyReport;
}

export function describeChange(zoneLabel: string, c: Change): string {
  return printable(`${zoneLabel}: ${SIGN[c.kind]} ${c.resource} "${shownTemplate(c.identity)}"`);
}

function mayHaveWritten(method: string, err: unknown): boolean {
  if (method === "GET") return false;
  if (err instanceof NetworkError) return err.info.ambiguous || (err.info.retries ?? 0) > 0;
  // A write retried (after a 5xx or a dropped connection) may have been made by an earlier attempt.
  return err instanceof ApiError && (err.status >= 500 || (err.info.retries ?? 0) > 0);
}

function alreadyGone(method: string, err: unknown): boolean {
  return method === "DELETE" && err instanceof ApiError && err.isNotFound();
}

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

class MaybeCreatedError extends RuntimeError {}

const RESENDS = { answered: 2, lost: 1 } as const;

function failureKind(err: unknown): "answered" | "lost" {
  return err instanceof ApiError ? "answered" : "lost";
}

function retriableCreate(op: Operation, err: unknown): op is Operation & { finds: Finder } {
  if (op.method !== "POST" || !op.finds) return false;
  if (err instanceof ApiError && (err.status === 409 || err.status === 429)) return true;
  return mayHaveWritten(op.method, err);
}

/** Sends one call. */
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

function lostCause(err: unknown): string {
  if (err instanceof ApiError) return `HTTP ${err.status}${(err.info.retries ?? 0) > 0 ? " after a retry" : ""}`;
  if (err instanceof NetworkError) return `no answer: ${err.info.cause ?? "the connection was lost"}`;
  return err instanceof Error ? err.message : String(err);
}

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

export function errorHints(change: Change, err: unknown): string[] {
  const byCode = HINTS.get(change.resource);
  if (!byCode || !(err instanceof ApiError)) return [];
  const codes = [...new Set(err.info.errors.map((e) => e.code).filter((c): c is number => c !== undefined))];
  return codes.flatMap((c) => (Object.hasOwn(byCode, c) ? [byCode[c]!(change)] : []));
}

type ChangeOutcome =
  | { ok: true; results: unknown[]; adopted: boolean }
  | { ok: false; line: string; uncertain: boolean }
  | { ok: false; notSent: RunStoppedError };

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

/** How a zone's changes run: only true dependencies are sequenced. */
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
