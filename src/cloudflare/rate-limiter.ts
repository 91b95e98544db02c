// The one rate limiter of a run, and the concurrency cap. Cloudflare allows 1200 requests per 5
// minutes per token; a plan over hundreds of zones must stay under that rather than hit 429s.
//
// The limiter is a sliding window that counts a request from the moment it is sent until `seconds`
// after its answer arrived. The server saw the request somewhere between those two instants, so no
// window of `seconds` on the server can hold more than `requests` of ours, whatever the latency: a
// run with the same limit as the server is never throttled. On top of its own count it reads the
// server's rate headers (other tools and the dashboard share the budget) and slows down before the
// budget runs out, and a 429's Retry-After pauses every caller. A wait the server's headers ask for
// that is longer than `maxWaitMs` is never waited: the limiter tells `onTooLong`, and the client stops
// the run. Once aborted (a signal, the deadline), every waiting and later acquire is refused.

export interface RateLimit {
  requests: number;
  seconds: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 1200, seconds: 300 };

type Headers = Record<string, string | string[] | undefined>;

/** Held while one HTTP attempt is in flight; `done()` when its answer (or failure) arrived. */
export interface Permit {
  done(): void;
}

export interface RateLimiterOptions extends RateLimit {
  now?: () => number;
  /** Told when the limiter starts holding requests back, and why. */
  log?: (line: string) => void;
  /**
   * Told each time requests must wait longer than already announced: for how long from now, and why
   * (one of WAIT_REASONS, or the reason given to pauseFor). Nothing is called while requests flow.
   */
  onWait?: (ms: number, reason: string) => void;
  /** Longest wait the server's rate headers may impose (default DEFAULT_MAX_WAIT_MS). */
  maxWaitMs?: number;
  /** Told instead of waiting when the headers ask for longer than maxWaitMs: how long, and which header said so. */
  onTooLong?: (ms: number, header: string) => void;
}

/** The longest any wait the server asks for may be: Cloudflare blocks a token for 5 minutes at most. */
export const DEFAULT_MAX_WAIT_MS = 5 * 60_000;

/** Why requests wait, in words for the progress line. */
export const WAIT_REASONS = {
  window: "this run has sent them all",
  retryAfter: "the server asked to wait after a 429",
  serverBudget: "the server says the shared budget is used up",
  serverPace: "the server says the shared budget is running low",
} as const;

/** What is left of the rate-limit budget: requests that may still be sent in the current window. */
export interface RateBudget {
  remaining: number;
  requests: number;
  seconds: number;
}

export class RateLimiter {
  readonly requests: number;
  readonly windowMs: number;
  private readonly now: () => number;
  private readonly log?: (line: string) => void;
  private readonly onWait?: (ms: number, reason: string) => void;
  private inflight = 0;
  /** Answer times of finished requests still inside the window, oldest first. */
  private finished: number[] = [];
  private blockedUntil = 0;
  private blockReason: string = WAIT_REASONS.retryAfter;
  /** The end of the last wait announced to onWait. */
  private announcedUntil = 0;
  /** The server's `remaining` from the last answer that carried it. */
  private serverRemaining: number | undefined;
  /** Minimum gap between two sends, set when the server says the budget is running low. */
  private paceMs = 0;
  private lastSend = 0;
  private readonly maxWaitMs: number;
  private readonly onTooLong?: (ms: number, header: string) => void;
  private readonly queue: Array<{ resolve: (p: Permit) => void; reject: (err: Error) => void }> = [];
  private aborted: Error | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = 0;

  constructor(opts: RateLimiterOptions) {
    if (!(opts.requests >= 1) || !(opts.seconds > 0))
      throw new RangeError("rate limit must be at least 1 request per a positive number of seconds");
    this.requests = Math.floor(opts.requests);
    this.windowMs = opts.seconds * 1000;
    this.now = opts.now ?? Date.now;
    this.log = opts.log;
    this.onWait = opts.onWait;
    this.maxWaitMs = opts.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.onTooLong = opts.onTooLong;
  }

  /** Waits until one more request may be sent; rejects with the abort's error once aborted. */
  acquire(): Promise<Permit> {
    if (this.aborted) return Promise.reject(this.aborted);
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      this.pump();
    });
  }

  /** Nothing more is let through: every request waiting, and every later one, is refused with `err`. */
  abort(err: Error): void {
    if (this.aborted) return;
    this.aborted = err;
    this.close();
    for (const q of this.queue.splice(0)) q.reject(err);
  }

  /** Every caller waits at least `ms` from now (a 429's Retry-After); `reason` is what onWait is told. */
  pauseFor(ms: number, why?: string, reason: string = WAIT_REASONS.retryAfter): void {
    const now = this.now();
    const until = now + ms;
    if (until > this.blockedUntil) {
      this.blockedUntil = until;
      this.blockReason = reason;
      if (why) this.log?.(`${why}: pausing all requests for ${formatMs(ms)}`);
      this.announce(now, until, reason);
    }
    this.pump();
  }

  /** What is left of the budget in the current window: the lower of this run's count and the server's. */
  budget(): RateBudget {
    this.prune(this.now());
    const own = Math.max(0, this.requests - this.inflight - this.finished.length);
    const remaining = this.serverRemaining === undefined ? own : Math.min(own, Math.max(0, this.serverRemaining));
    return { remaining, requests: this.requests, seconds: this.windowMs / 1000 };
  }

  private announce(now: number, until: number, reason: string): void {
    if (!this.onWait || until <= now || until <= this.announcedUntil) return;
    this.announcedUntil = until;
    this.onWait(until - now, reason);
  }

  /**
   * Reads `x-ratelimit-remaining` / `ratelimit: limit=…, remaining=…, reset=…` (or the `r=`/`t=` form
   * of later drafts). With the budget used up it holds requests until the reset; when it runs low it
   * spreads the rest evenly over the time left.
   */
  observe(headers: Headers): void {
    const rl = parseRateHeaders(headers, this.now());
    if (rl.remaining === undefined) return;
    this.serverRemaining = rl.remaining;
    const limit = rl.limit ?? this.requests;
    const resetMs = rl.resetSeconds !== undefined ? rl.resetSeconds * 1000 : undefined;
    const evenPace = this.windowMs / this.requests;
    // Requests already sent may not be counted in `remaining` yet.
    const left = rl.remaining - Math.max(0, this.inflight - 1);
    if (left <= 0) {
      const wait = resetMs ?? evenPace * Math.max(1, this.inflight);
      if (resetMs !== undefined && this.tooLong(wait, rl.header)) return;
      this.pauseFor(wait, `rate limit budget used up (remaining ${rl.remaining})`, WAIT_REASONS.serverBudget);
    } else if (rl.remaining < Math.max(2, limit * 0.1)) {
      const pace = resetMs !== undefined ? resetMs / left : evenPace;
      if (resetMs !== undefined && this.tooLong(pace, rl.header)) return;
      if (pace > this.paceMs)
        this.log?.(`rate limit budget low (remaining ${rl.remaining}): one request every ${formatMs(pace)}`);
      this.paceMs = pace;
    } else {
      this.paceMs = 0;
    }
    this.pump();
  }

  /** Whether a wait the headers ask for is beyond the cap: then onTooLong is told, and nothing waits. */
  private tooLong(ms: number, header: string | undefined): boolean {
    if (ms <= this.maxWaitMs || !this.onTooLong) return false;
    this.onTooLong(ms, header ?? "rate headers");
    return true;
  }

  /** For --verbose and tests. */
  snapshot(): { inflight: number; inWindow: number; queued: number; blockedForMs: number } {
    const now = this.now();
    this.prune(now);
    return {
      inflight: this.inflight,
      inWindow: this.inflight + this.finished.length,
      queued: this.queue.length,
      blockedForMs: Math.max(0, this.blockedUntil - now),
    };
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private prune(now: number): void {
    const cutoff = now - this.windowMs;
    let i = 0;
    while (i < this.finished.length && this.finished[i]! <= cutoff) i++;
    if (i > 0) this.finished.splice(0, i);
  }

  /** When the next request may go, or undefined when that depends on an answer still to come. */
  private nextSendAt(now: number): number | undefined {
    this.prune(now);
    let at = Math.max(now, this.blockedUntil, this.lastSend + this.paceMs);
    const used = this.inflight + this.finished.length;
    if (used >= this.requests) {
      const idx = used - this.requests;
      const oldest = this.finished[idx];
      if (oldest === undefined) return undefined;
      at = Math.max(at, oldest + this.windowMs + 1);
    }
    return at;
  }

  /** Which of nextSendAt's bounds holds requests back until `at`. */
  private waitReason(at: number): string {
    if (at <= this.blockedUntil) return this.blockReason;
    if (at <= this.lastSend + this.paceMs) return WAIT_REASONS.serverPace;
    return WAIT_REASONS.window;
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const now = this.now();
      const at = this.nextSendAt(now);
      if (at === undefined) return; // a finishing request will pump again
      if (at > now) {
        if (this.onWait && at > this.announcedUntil) this.announce(now, at, this.waitReason(at));
        this.schedule(at - now);
        return;
      }
      const { resolve } = this.queue.shift()!;
      this.inflight++;
      this.lastSend = now;
      let released = false;
      resolve({
        done: () => {
          if (released) return;
          released = true;
          this.inflight--;
          this.finished.push(this.now());
          this.pump();
        },
      });
    }
  }

  private schedule(ms: number): void {
    const at = this.now() + ms;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(1, Math.ceil(ms)),
    );
  }
}

/** What the rate headers of one answer say; `header` names the header that said it, as it was answered. */
export interface RateHeaders {
  limit?: number;
  remaining?: number;
  resetSeconds?: number;
  header?: string;
}

/**
 * Parses the rate headers Cloudflare may send: `Ratelimit: "default";r=…;t=…` (since 2025-09, with
 * `Ratelimit-Policy: "default";q=…;w=…`), the older `Ratelimit: limit=…, remaining=…, reset=…`, and
 * `X-RateLimit-Limit/-Remaining/-Reset` (a reset beyond 10^9 is an epoch time, taken from `now`).
 */
export function parseRateHeaders(headers: Headers, now: number = Date.now()): RateHeaders {
  const get = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v.join(", ") : v;
  };
  const num = (s: string | undefined): number | undefined => {
    if (s === undefined) return undefined;
    const n = Number(s.trim());
    return Number.isFinite(n) && s.trim() !== "" ? n : undefined;
  };
  const out: RateHeaders = {};
  const combined = get("ratelimit");
  const field = (text: string, names: string[]): number | undefined => {
    for (const n of names) {
      const m = fieldPattern(n).exec(text);
      if (m) return Number(m[1]);
    }
    return undefined;
  };
  if (combined) {
    out.limit = field(combined, ["limit"]);
    out.remaining = field(combined, ["remaining", "r"]);
    out.resetSeconds = field(combined, ["reset", "t"]);
    if (out.remaining !== undefined || out.resetSeconds !== undefined) out.header = `Ratelimit: ${shown(combined)}`;
  }
  const policy = get("ratelimit-policy");
  if (out.limit === undefined && policy) out.limit = field(policy, ["q"]);
  out.limit ??= num(get("x-ratelimit-limit") ?? get("ratelimit-limit"));
  if (out.remaining === undefined && out.resetSeconds === undefined) {
    const x =
      get("x-ratelimit-remaining") !== undefined || get("x-ratelimit-reset") !== undefined
        ? "x-ratelimit"
        : "ratelimit";
    out.remaining = num(get(`${x}-remaining`));
    out.resetSeconds = num(get(`${x}-reset`));
    const parts = [`${x}-remaining`, `${x}-reset`]
      .filter((h) => get(h) !== undefined)
      .map(
        (h) =>
          `${h
            .replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase())
            .replace("Ratelimit", "RateLimit")}: ${shown(get(h)!)}`,
      );
    if (parts.length > 0) out.header = parts.join(", ");
  }
  // A reset that looks like an epoch timestamp, not a delay.
  if (out.resetSeconds !== undefined && out.resetSeconds > 1e9)
    out.resetSeconds = Math.max(0, out.resetSeconds - now / 1000);
  return out;
}

/** The expression of one `name=value` field of a rate-limit header, made once per name (every answer has one). */
const FIELD_PATTERNS = new Map<string, RegExp>();
function fieldPattern(name: string): RegExp {
  let re = FIELD_PATTERNS.get(name);
  if (!re) {
    re = new RegExp(`(?:^|[\\s,;])${name}\\s*=\\s*"?(\\d+(?:\\.\\d+)?)`, "i");
    FIELD_PATTERNS.set(name, re);
  }
  return re;
}

/** A header's value as a message quotes it: printable, and short. */
function shown(value: string): string {
  const flat = value.replace(/[^\x20-\x7e]/g, "?");
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}

/** A counting semaphore: at most `size` holders at once, first come first served; `abort` refuses the waiting. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  private aborted: Error | undefined;
  constructor(readonly size: number) {
    if (!(size >= 1)) throw new RangeError("parallelism must be at least 1");
  }

  /** Every holder waiting, and every later acquire, is refused with `err`; holders keep their place. */
  abort(err: Error): void {
    if (this.aborted) return;
    this.aborted = err;
    for (const w of this.waiting.splice(0)) w.reject(err);
  }

  async acquire(): Promise<() => void> {
    if (this.aborted) throw this.aborted;
    if (this.active < this.size) {
      this.active++;
    } else {
      await new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.resolve();
      else this.active--;
    };
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10_000 ? 0 : 1)}s` : `${Math.round(ms)}ms`;
}

/** A wait as messages name it: `41s`, `5m`, `24h`, `1h 30m`. */
export function formatWait(ms: number): string {
  if (ms < 60_000) return formatMs(ms);
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h}h` : `${h}h ${m}m`;
}
