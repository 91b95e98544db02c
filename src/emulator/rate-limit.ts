// Per-credential sliding-window rate limit.
// Spec: docs/emulator.md, Rate limit.
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a slot frees up (the oldest request in the window leaves it). */
  resetSeconds: number;
  windowSeconds: number;
}

export class SlidingWindowLimiter {
  private readonly log = new Map<string, number[]>();

  /** Counts one request for `key` if the window has room; never counts a refused one. */
  take(key: string, limit: { requests: number; seconds: number }, nowMs = Date.now()): RateDecision {
    const windowMs = limit.seconds * 1000;
    const times = this.prune(key, nowMs - windowMs);
    const allowed = times.length < limit.requests;
    if (allowed) times.push(nowMs);
    const oldest = times[0];
    const resetSeconds =
      oldest === undefined ? limit.seconds : Math.max(1, Math.ceil((oldest + windowMs - nowMs) / 1000));
    return {
      allowed,
      limit: limit.requests,
      remaining: Math.max(0, limit.requests - times.length),
      resetSeconds,
      windowSeconds: limit.seconds,
    };
  }

  /** What an unauthenticated answer reports: the full allowance. */
  static idle(limit: { requests: number; seconds: number }): RateDecision {
    return {
      allowed: true,
      limit: limit.requests,
      remaining: limit.requests,
      resetSeconds: limit.seconds,
      windowSeconds: limit.seconds,
    };
  }

  clear(): void {
    this.log.clear();
  }

  private prune(key: string, since: number): number[] {
    let times = this.log.get(key);
    if (!times) {
      times = [];
      this.log.set(key, times);
    }
    let drop = 0;
    while (drop < times.length && times[drop]! <= since) drop++;
    if (drop > 0) times.splice(0, drop);
    return times;
  }
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    "x-ratelimit-limit": String(d.limit),
    "x-ratelimit-remaining": String(d.remaining),
    ratelimit: `"default";r=${d.remaining};t=${d.resetSeconds}`,
    "ratelimit-policy": `"default";q=${d.limit};w=${d.windowSeconds}`,
  };
}
