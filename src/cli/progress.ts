// Progress of the long commands (plan, apply, drift, audit, csp suggest, export) on stderr.
// Spec: docs/commands/README.md, flags for the API (progress).
import process from "node:process";
import type { RateBudget } from "../cloudflare/index.js";
import { UsageError } from "../errors.js";
import { clipWidth } from "../text-width.js";
import type { CliIO, Output } from "./io.js";
import type { Env } from "../model/index.js";
import { estimateEta } from "./progress-eta.js";

/** Where requests and the budget are read from: the API client. */
export interface ProgressSource {
  stats(): { requests: number };
  budget?(): RateBudget;
}

/** What a wait is for: the rate limit (every request waits) or a retry of one call (backoff). */
export type WaitKind = "rate-limit" | "retry";

export interface ProgressState {
  label: string;
  done: number;
  total?: number;
  unit: string;
  counts?: ReadonlyArray<readonly [string, number]>;
  requests?: number;
  budget?: RateBudget;
  etaMs?: number;
}

/** `0.4 s`, `41 s`, `2m`, `1h 5m`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${(Math.ceil(s * 10) / 10).toFixed(1)} s`;
  if (s < 90) return `${Math.round(s)} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m}m`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

function formatLimit(b: { requests: number; seconds: number }): string {
  return `${b.requests} requests per ${Number(b.seconds.toFixed(3))} s`;
}

/**
 * `waiting 41 s for the rate limit (1200 requests per 300 s; the server asked to wait after a 429)`, or for a retry:
 * `waiting 2.0 s to retry (GET zones/…/page_shield answered HTTP 503)`.
 */
export function formatWait(
  ms: number,
  reason: string,
  limit?: { requests: number; seconds: number },
  kind: WaitKind = "rate-limit",
): string {
  if (kind === "retry") return `waiting ${formatDuration(ms)} to retry (${reason})`;
  const why = limit ? `${formatLimit(limit)}; ${reason}` : reason;
  return `waiting ${formatDuration(ms)} for the rate limit (${why})`;
}

/** `plan: 144/300 zones read, 1021 requests, rate limit 179/1200 left, about 2m left`. */
export function formatProgress(s: ProgressState): string {
  const parts = [s.total === undefined ? `${s.done} ${s.unit}` : `${s.done}/${s.total} ${s.unit}`];
  if (s.counts && s.counts.length > 0) parts.push(`${s.counts.map(([kind, n]) => `${n} ${kind}`).join(", ")} read`);
  if (s.requests !== undefined) parts.push(`${s.requests} request${s.requests === 1 ? "" : "s"}`);
  if (s.budget) parts.push(`rate limit ${s.budget.remaining}/${s.budget.requests} left`);
  if (s.etaMs !== undefined) parts.push(`about ${formatDuration(s.etaMs)} left`);
  return `${s.label}: ${parts.join(", ")}`;
}

export interface Progress {
  begin(label: string, unit: string, total?: number): void;
  update(done: number, total?: number): void;
  count(kind: string, n?: number): void;
  onWait(ms: number, reason: string, kind?: WaitKind): void;
  watch(source: ProgressSource): void;
  log(line: string): void;
  clear(): void;
  end(): void;
  tick(): void;
}

export interface ProgressOptions {
  out: Output;
  enabled?: boolean;
  tty?: boolean;
  now?: () => number;
  heartbeatMs?: number;
  refreshMs?: number;
  columns?: () => number | undefined;
  every?: (ms: number, fn: () => void) => () => void;
}

const DEFAULT_HEARTBEAT_MS = 5000;
const SHORT_WAIT_MS = 1000;
const WAIT_FLOW_MS = 1000;
const ERASE = "\r\u001b[K";

function defaultEvery(ms: number, fn: () => void): () => void {
  const timer = setInterval(fn, ms);
  timer.unref();
  return () => clearInterval(timer);
}

interface Phase {
  label: string;
  unit: string;
  total?: number;
  done: number;
  startedAt: number;
  lastBeat: number;
  requestsAtStart: number;
  marks: Array<[number, number]>;
  waits: Array<[number, number]>;
}

/** What a progress has seen so far, shared by its methods and the helpers below. */
interface ProgressRun {
  source?: ProgressSource;
  phase?: Phase;
  /** Requests the run had sent by each time, over the rate limit's last window (kept across phases). */
  sent: Array<[number, number]>;
  counts: Map<string, number>;
  wait?: { until: number; reason: string; kind: WaitKind };
}

/** Notes the requests sent by `at`. */
function sampleRequests(run: ProgressRun, at: number): number | undefined {
  const { sent, source } = run;
  const requests = source?.stats().requests;
  if (requests === undefined) return undefined;
  if (sent.at(-1)?.[1] !== requests) sent.push([at, requests]);
  const keepFrom = Math.min(run.phase?.startedAt ?? at, at - (source?.budget?.().seconds ?? 300) * 1000);
  let old = 0;
  while (old + 1 < sent.length && sent[old + 1]![0] <= keepFrom) old++;
  if (old > 0) sent.splice(0, old);
  return requests;
}

function progressState(run: ProgressRun, at: number): ProgressState {
  const p = run.phase!;
  const requests = sampleRequests(run, at);
  const budget = run.source?.budget?.();
  const wait = run.wait;
  const eta = estimateEta({
    now: at,
    startedAt: p.startedAt,
    marks: p.marks,
    total: p.total,
    // The phase's own requests: a plan's reads are not the cost of an apply's changes.
    requests: requests === undefined ? undefined : requests - p.requestsAtStart,
    budget,
    sent: run.sent,
    waits: p.waits,
    retryUntil: wait?.kind === "retry" && wait.until > at ? wait.until : undefined,
  });
  return {
    label: p.label,
    done: p.done,
    total: p.total,
    unit: p.unit,
    counts: [...run.counts],
    requests,
    budget,
    etaMs: eta,
  };
}

/** The progress line; while waiting, the wait and why replace requests and budget: the line must stay short. */
function waitingLine(run: ProgressRun, s: ProgressState, at: number): string {
  const wait = run.wait;
  return wait && wait.until > at
    ? `${formatProgress({ ...s, requests: undefined, budget: undefined })}, ` +
        formatWait(wait.until - at, wait.reason, s.budget, wait.kind)
    : formatProgress(s);
}

export function createProgress(opts: ProgressOptions): Progress {
  const out = opts.out;
  const enabled = opts.enabled !== false;
  const tty = opts.tty ?? out.isTTY;
  const now = opts.now ?? Date.now;
  const heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const every = opts.every ?? defaultEvery;
  const run: ProgressRun = { sent: [], counts: new Map() };
  let stopTimer: (() => void) | undefined;
  let drawn = "";
  /** Off a terminal: the end of the last wait given a line. */
  let printedWaitUntil = 0;

  const clear = (): void => {
    if (drawn === "") return;
    out.write(ERASE);
    drawn = "";
  };

  const tick = (): void => {
    const phase = run.phase;
    if (!enabled || !phase) return;
    const at = now();
    if (tty) {
      // One column short of the width: a line that fills it would wrap on some terminals.
      const line = clipWidth(waitingLine(run, progressState(run, at), at), Math.max(20, (opts.columns?.() || 80) - 1));
      if (line === drawn) return;
      out.write(`\r${line}\u001b[K`);
      drawn = line;
    } else if (at - phase.lastBeat >= heartbeatMs) {
      // Steady: the next beat is due a whole interval after this one was, however late the timer ran.
      phase.lastBeat += Math.floor((at - phase.lastBeat) / heartbeatMs) * heartbeatMs;
      out.write(`${waitingLine(run, progressState(run, at), at)}\n`);
    }
  };

  return {
    begin(label, unit, total) {
      if (!enabled) return;
      stopTimer?.();
      clear();
      run.counts.clear();
      const at = now();
      run.phase = {
        label,
        unit,
        total,
        done: 0,
        startedAt: at,
        lastBeat: at,
        requestsAtStart: sampleRequests(run, at) ?? 0,
        marks: [],
        waits: [],
      };
      stopTimer = every(tty ? (opts.refreshMs ?? 250) : Math.min(1000, heartbeatMs), tick);
    },
    update(done, total) {
      const phase = run.phase;
      if (!phase) return;
      const at = now();
      if (done !== phase.done) phase.marks.push([at, done]);
      sampleRequests(run, at);
      phase.done = done;
      if (total !== undefined) phase.total = total;
    },
    count(kind, n = 1) {
      if (!run.phase) return;
      run.counts.set(kind, (run.counts.get(kind) ?? 0) + n);
    },
    onWait(ms, reason, kind = "rate-limit") {
      if (!enabled) return;
      const { phase, wait } = run;
      const at = now();
      const until = at + ms;
      if (!wait || until > wait.until || wait.until <= at) run.wait = { until, reason, kind };
      const last = phase?.waits.at(-1);
      if (phase && kind === "rate-limit" && last && last[1] > at) last[1] = Math.max(last[1], until);
      else if (phase && kind === "rate-limit" && ms >= WAIT_FLOW_MS) phase.waits.push([at, until]);
      // A retry's wait shows in the line or the next heartbeat.
      if (tty || kind === "retry" || ms < SHORT_WAIT_MS || until < printedWaitUntil + SHORT_WAIT_MS) return;
      printedWaitUntil = until;
      out.write(`${formatWait(ms, reason, run.source?.budget?.())}\n`);
    },
    watch(s) {
      run.source = s;
    },
    log(line) {
      clear();
      out.write(`${line}\n`);
    },
    clear,
    end() {
      stopTimer?.();
      stopTimer = undefined;
      clear();
      run.phase = undefined;
    },
    tick,
  };
}

/** `ZONEFORM_HEARTBEAT`: seconds between heartbeat lines off a terminal (default 5). */
export function heartbeatFromEnv(env: Env): number {
  const raw = env.ZONEFORM_HEARTBEAT?.trim();
  if (!raw) return DEFAULT_HEARTBEAT_MS;
  const s = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(s >= 0.1) || s > 3600) {
    throw new UsageError(`ZONEFORM_HEARTBEAT must be a number of seconds from 0.1 to 3600, got "${raw}"`);
  }
  return s * 1000;
}

/**
 * The command's progress on stderr: off with --quiet (log lines still written), heartbeat lines when stderr is not a
 * terminal or is a dumb one.
 */
export function progressFor(io: CliIO, opts: { quiet?: boolean }): Progress {
  const tty = io.stderr.isTTY && io.env.TERM !== "dumb";
  return createProgress({
    out: io.stderr,
    enabled: !opts.quiet,
    tty,
    heartbeatMs: heartbeatFromEnv(io.env),
    columns: () => process.stderr.columns,
  });
}
