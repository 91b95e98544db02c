// Progress of the long commands (plan, apply, drift, audit, csp suggest, export) on stderr.
import process from "node:process";
import type { RateBudget } from "../cloudflare/index.js";
import { UsageError } from "../errors.js";
import { clipWidth } from "../text-width.js";
import type { CliIO, Output } from "./io.js";
import type { Env } from "../model/index.js";

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

const ETA_MIN_DONE = 3;
const ETA_MIN_ELAPSED_MS = 2000;
const RATE_MIN_WINDOW_MS = 1000;

/** `[time, count]` pairs, oldest first: units done, or requests sent, by then. */
export type Samples = ReadonlyArray<readonly [number, number]>;

function timeOf(s: Samples, n: number, before: number): number {
  if (n <= 0) return before;
  for (const [t, c] of s) if (c >= n) return Math.max(t, before);
  return before;
}

function countAt(s: Samples, at: number, clock = (t: number) => t): number {
  for (let i = s.length - 1; i >= 0; i--) if (clock(s[i]![0]) <= at) return s[i]![1];
  return 0;
}

function flowTime(at: number, start: number, waits: Samples): number {
  let t = at - start;
  for (const [since, until] of waits) {
    if (since >= at) break;
    t -= Math.max(0, Math.min(until, at) - Math.max(since, start));
  }
  return t;
}

function windowWait(now: number, needed: number, b: RateBudget, sent: Samples): number {
  const extra = Math.ceil(needed) - b.remaining;
  if (extra <= 0 || sent.length === 0) return 0;
  const windowMs = b.seconds * 1000;
  const inWindow = b.requests - b.remaining;
  const j = (extra - 1) % b.requests;
  const oldest = j < inWindow ? timeOf(sent, sent.at(-1)![1] - inWindow + j + 1, now - windowMs) : now;
  return Math.max(0, oldest + (Math.floor((extra - 1) / b.requests) + 1) * windowMs - now);
}

function perUnit(p: EtaInput, requests: number, sent: Samples, done: number): number {
  const last = p.waits?.at(-1)?.[1] ?? p.now;
  const doneThen = countAt(p.marks, last - 1);
  if (last >= p.now || doneThen === 0) return requests / done;
  return (countAt(sent, last - 1) - (sent.at(-1)![1] - requests)) / doneThen;
}

export interface EtaInput {
  now: number;
  startedAt: number;
  marks: Samples;
  total?: number;
  requests?: number;
  budget?: RateBudget;
  sent?: Samples;
  waits?: Samples;
  retryUntil?: number;
}

/**
 * Time left: the units left at the rate measured while requests flowed (waits for the rate limit left out), over the
 * later half of the units done and at least a second, from the first unit done on (a slow start and the latency
 * before it weigh nothing).
 */
export function estimateEta(p: EtaInput): number | undefined {
  const done = p.marks.at(-1)?.[1] ?? 0;
  if (p.total === undefined || done >= p.total) return undefined;
  const waits = p.waits ?? [];
  const flow = (at: number) => flowTime(at, p.startedAt, waits);
  const first = p.marks[0];
  if (!first || done < ETA_MIN_DONE || p.now - first[0] < ETA_MIN_ELAPSED_MS) return undefined;
  const start = flow(first[0]);
  const end = flow(p.now);
  const back = Math.max(ETA_MIN_DONE, Math.floor(done / 2));
  const from = Math.max(start, Math.min(end - RATE_MIN_WINDOW_MS, flow(timeOf(p.marks, done - back, p.startedAt))));
  const units = done - countAt(p.marks, from, flow);
  if (!(units > 0)) return undefined;
  let eta = ((p.total - done) / units) * (end - from);
  const wait = waits.at(-1);
  if (wait && wait[1] > p.now) eta += wait[1] - p.now;
  if (p.retryUntil !== undefined) eta = Math.max(eta, p.retryUntil - p.now);
  if (p.budget && p.requests !== undefined && p.sent && p.sent.length > 0) {
    eta = Math.max(
      eta,
      windowWait(p.now, perUnit(p, p.requests, p.sent, done) * p.total - p.requests, p.budget, p.sent),
    );
  }
  return eta;
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

export function createProgress(opts: ProgressOptions): Progress {
  const out = opts.out;
  const enabled = opts.enabled !== false;
  const tty = opts.tty ?? out.isTTY;
  const now = opts.now ?? Date.now;
  const heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const every = opts.every ?? defaultEvery;
  let source: ProgressSource | undefined;
  let phase:
    | {
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
    | undefined;
  /** Requests the run had sent by each time, over the rate limit's last window (kept across phases). */
  const sent: Array<[number, number]> = [];
  const counts = new Map<string, number>();
  let stopTimer: (() => void) | undefined;
  let drawn = "";
  let wait: { until: number; reason: string; kind: WaitKind } | undefined;
  /** Off a terminal: the end of the last wait given a line. */
  let printedWaitUntil = 0;

  /** Notes the requests sent by `at`. */
  const sample = (at: number): number | undefined => {
    const requests = source?.stats().requests;
    if (requests === undefined) return undefined;
    if (sent.at(-1)?.[1] !== requests) sent.push([at, requests]);
    const keepFrom = Math.min(phase?.startedAt ?? at, at - (source?.budget?.().seconds ?? 300) * 1000);
    let old = 0;
    while (old + 1 < sent.length && sent[old + 1]![0] <= keepFrom) old++;
    if (old > 0) sent.splice(0, old);
    return requests;
  };

  const state = (at: number): ProgressState => {
    const p = phase!;
    const requests = sample(at);
    const budget = source?.budget?.();
    const eta = estimateEta({
      now: at,
      startedAt: p.startedAt,
      marks: p.marks,
      total: p.total,
      // The phase's own requests: a plan's reads are not the cost of an apply's changes.
      requests: requests === undefined ? undefined : requests - p.requestsAtStart,
      budget,
      sent,
      waits: p.waits,
      retryUntil: wait?.kind === "retry" && wait.until > at ? wait.until : undefined,
    });
    return {
      label: p.label,
      done: p.done,
      total: p.total,
      unit: p.unit,
      counts: [...counts],
      requests,
      budget,
      etaMs: eta,
    };
  };
  const limit = (): { requests: number; seconds: number } | undefined => source?.budget?.();

  const clear = (): void => {
    if (drawn === "") return;
    out.write(ERASE);
    drawn = "";
  };

  const tick = (): void => {
    if (!enabled || !phase) return;
    const at = now();
    if (tty) {
      const s = state(at);
      // While waiting, the wait and why replace requests and budget: the line must stay short.
      let line = waitingLine(s, at);
      // One column short of the width: a line that fills it would wrap on some terminals.
      line = clipWidth(line, Math.max(20, (opts.columns?.() || 80) - 1));
      if (line === drawn) return;
      out.write(`\r${line}\u001b[K`);
      drawn = line;
    } else if (at - phase.lastBeat >= heartbeatMs) {
      // Steady: the next beat is due a whole interval after this one was, however late the timer ran.
      phase.lastBeat += Math.floor((at - phase.lastBeat) / heartbeatMs) * heartbeatMs;
      out.write(`${waitingLine(state(at), at)}\n`);
    }
  };
  /** The progress line. */
  const waitingLine = (s: ProgressState, at: number): string =>
    wait && wait.until > at
      ? `${formatProgress({ ...s, requests: undefined, budget: undefined })}, ` +
        formatWait(wait.until - at, wait.reason, s.budget, wait.kind)
      : formatProgress(s);

  return {
    begin(label, unit, total) {
      if (!enabled) return;
      stopTimer?.();
      clear();
      counts.clear();
      const at = now();
      phase = {
        label,
        unit,
        total,
        done: 0,
        startedAt: at,
        lastBeat: at,
        requestsAtStart: sample(at) ?? 0,
        marks: [],
        waits: [],
      };
      stopTimer = every(tty ? (opts.refreshMs ?? 250) : Math.min(1000, heartbeatMs), tick);
    },
    update(done, total) {
      if (!phase) return;
      const at = now();
      if (done !== phase.done) phase.marks.push([at, done]);
      sample(at);
      phase.done = done;
      if (total !== undefined) phase.total = total;
    },
    count(kind, n = 1) {
      if (!phase) return;
      counts.set(kind, (counts.get(kind) ?? 0) + n);
    },
    onWait(ms, reason, kind = "rate-limit") {
      if (!enabled) return;
      const at = now();
      const until = at + ms;
      if (!wait || until > wait.until || wait.until <= at) wait = { until, reason, kind };
      const last = phase?.waits.at(-1);
      if (phase && kind === "rate-limit" && last && last[1] > at) last[1] = Math.max(last[1], until);
      else if (phase && kind === "rate-limit" && ms >= WAIT_FLOW_MS) phase.waits.push([at, until]);
      // A retry's wait shows in the line or the next heartbeat.
      if (tty || kind === "retry" || ms < SHORT_WAIT_MS || until < printedWaitUntil + SHORT_WAIT_MS) return;
      printedWaitUntil = until;
      out.write(`${formatWait(ms, reason, limit())}\n`);
    },
    watch(s) {
      source = s;
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
      phase = undefined;
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
