import { describe, expect, it } from "vitest";
import { RateLimiter, Semaphore, parseRateHeaders } from "../../../src/cloudflare/rate-limiter.js";

describe("rate limiter", () => {
  it("counts a request until a full window after its answer", async () => {
    let now = 1000;
    const limiter = new RateLimiter({ requests: 2, seconds: 10, now: () => now });
    const a = await limiter.acquire();
    const b = await limiter.acquire();
    let third = false;
    const pending = limiter.acquire().then((p) => ((third = true), p));
    a.done();
    b.done();
    await new Promise((r) => setTimeout(r, 5));
    expect(third).toBe(false);
    expect(limiter.snapshot()).toMatchObject({ inflight: 0, inWindow: 2, queued: 1 });
    now += 10_001;
    limiter.pauseFor(0);
    (await pending).done();
    expect(third).toBe(true);
    limiter.close();
  });

  it("holds everyone back for a pause (a 429's Retry-After)", async () => {
    const limiter = new RateLimiter({ requests: 100, seconds: 1 });
    limiter.pauseFor(150);
    const t0 = Date.now();
    (await limiter.acquire()).done();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    limiter.close();
  });

  it("pauses until the reset when the server says the budget is used up", () => {
    const limiter = new RateLimiter({ requests: 100, seconds: 60 });
    limiter.observe({ ratelimit: "limit=100, remaining=0, reset=7" });
    expect(limiter.snapshot().blockedForMs).toBeGreaterThan(6000);
    limiter.close();
  });

  it("reads both rate header styles", () => {
    expect(parseRateHeaders({ "x-ratelimit-limit": "1200", "x-ratelimit-remaining": "17" })).toMatchObject({ limit: 1200, remaining: 17 });
    expect(parseRateHeaders({ ratelimit: "limit=10, remaining=3, reset=4" })).toEqual({ limit: 10, remaining: 3, resetSeconds: 4 });
    expect(parseRateHeaders({ ratelimit: '"default";r=5;t=30' })).toMatchObject({ remaining: 5, resetSeconds: 30 });
  });
});

describe("semaphore", () => {
  it("never lets more than its size run at once", async () => {
    const sem = new Semaphore(3);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        sem.run(async () => {
          peak = Math.max(peak, ++active);
          await new Promise((r) => setTimeout(r, 2));
          active--;
        }),
      ),
    );
    expect(peak).toBe(3);
  });
});
