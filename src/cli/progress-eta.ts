// The ETA of a phase of progress: the measured rate of the unit counted, with the waits for the rate limit added
// rather than averaged in. Spec: docs/commands/README.md (progress).
import type { RateBudget } from "../cloudflare/index.js";

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
