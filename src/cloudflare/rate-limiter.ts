// The run's rate limiter and concurrency cap. A request counts from when it is sent until `seconds` after
// its answer: the server saw it in between, so a run at the server's limit is never throttled. The server's
// rate headers (a budget shared with other tools) slow it down early. Spec: docs/connecting.md, Rate limiting.
export interface RateLimit {
  requests: number;
  seconds: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 1200, seconds: 300 };

type Headers = Record<string, string | string[] | undefined>;

export interface Permit {
  done(): void;
}

export interface RateLimiterOptions extends RateLimit {
  now?: () => number;
  log?: (line: string) => void;
  onWait?: (ms: number, reason: string) => void;
  maxWaitMs?: number;
  onTooLong?: (ms: number, header: string) => void;
}

export const DEFAULT_MAX_WAIT_MS = 5 * 60_000;

export const WAIT_REASONS = {
  window: "this run has sent them all",
  retryAfter: "the server asked to wait after a 429",
  serverBudget: "the server says the shared budget is used up",
  serverPace: "the server says the shared budget is running low",
} as const;

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
  private finished: number[] = [];
  private blockedUntil = 0;
  private blockReason: string = WAIT_REASONS.retryAfter;
  private announcedUntil = 0;
  private serverRemaining: number | undefined;
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

  acquire(): Promise<Permit> {
    if (this.aborted) return Promise.reject(this.aborted);
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      this.pump();
    });
  }

  abort(err: Error): void {
    if (this.aborted) return;
    this.aborted = err;
    this.close();
    for (const q of this.queue.splice(0)) q.reject(err);
  }

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

  private tooLong(ms: number, header: string | undefined): boolean {
    if (ms <= this.maxWaitMs || !this.onTooLong) return false;
    this.onTooLong(ms, header ?? "rate headers");
    return true;
  }

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

export interface RateHeaders {
  limit?: number;
  remaining?: number;
  resetSeconds?: number;
  header?: string;
}

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

const FIELD_PATTERNS = new Map<string, RegExp>();
function fieldPattern(name: string): RegExp {
  let re = FIELD_PATTERNS.get(name);
  if (!re) {
    re = new RegExp(`(?:^|[\\s,;])${name}\\s*=\\s*"?(\\d+(?:\\.\\d+)?)`, "i");
    FIELD_PATTERNS.set(name, re);
  }
  return re;
}

function shown(value: string): string {
  const flat = value.replace(/[^\x20-\x7e]/g, "?");
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}

export class Semaphore {
  private active = 0;
  private readonly waiting: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  private aborted: Error | undefined;
  constructor(readonly size: number) {
    if (!(size >= 1)) throw new RangeError("parallelism must be at least 1");
  }

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

export function formatWait(ms: number): string {
  if (ms < 60_000) return formatMs(ms);
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h}h` : `${h}h ${m}m`;
}
