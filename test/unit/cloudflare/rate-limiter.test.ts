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

  it("reads every rate header style, naming the header that said it", () => {
    expect(parseRateHeaders({ "x-ratelimit-limit": "1200", "x-ratelimit-remaining": "17" })).toMatchObject({
      limit: 1200,
      remaining: 17,
      header: "X-RateLimit-Remaining: 17",
    });
    expect(parseRateHeaders({ ratelimit: "limit=10, remaining=3, reset=4" })).toEqual({
      limit: 10,
      remaining: 3,
      resetSeconds: 4,
      header: "Ratelimit: limit=10, remaining=3, reset=4",
    });
    // The format since 2025-09 (Cloudflare changelog 2025-09-03), with its policy header.
    expect(parseRateHeaders({ ratelimit: '"default";r=5;t=30', "ratelimit-policy": '"default";q=1200;w=300' })).toEqual(
      {
        limit: 1200,
        remaining: 5,
        resetSeconds: 30,
        header: 'Ratelimit: "default";r=5;t=30',
      },
    );
    // An epoch reset is taken from the clock given, not the system's.
    expect(
      parseRateHeaders({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": "2000000100" }, 2_000_000_000_000),
    ).toMatchObject({ resetSeconds: 100 });
  });
});

describe("every wait the server asks for is bounded", () => {
  const tooLong = (headers: Record<string, string>, maxWaitMs = 300_000) => {
    const told: Array<[number, string]> = [];
    const limiter = new RateLimiter({
      requests: 1200,
      seconds: 300,
      now: () => 0,
      maxWaitMs,
      onTooLong: (ms, h) => told.push([ms, h]),
    });
    limiter.observe(headers);
    const blocked = limiter.snapshot().blockedForMs;
    limiter.close();
    return { told, blocked };
  };

  it("a used-up budget whose reset is beyond the cap is never waited: onTooLong names the wait and the header", () => {
    expect(tooLong({ ratelimit: "limit=1200, remaining=0, reset=86400" })).toEqual({
      told: [[86_400_000, "Ratelimit: limit=1200, remaining=0, reset=86400"]],
      blocked: 0,
    });
    expect(tooLong({ ratelimit: '"default";r=0;t=3600' })).toEqual({
      told: [[3_600_000, 'Ratelimit: "default";r=0;t=3600']],
      blocked: 0,
    });
    expect(tooLong({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": "900" })).toEqual({
      told: [[900_000, "X-RateLimit-Remaining: 0, X-RateLimit-Reset: 900"]],
      blocked: 0,
    });
  });

  it("a wait at the cap is waited; a low budget paced beyond the cap per request is not", () => {
    expect(tooLong({ ratelimit: "limit=1200, remaining=0, reset=300" })).toEqual({ told: [], blocked: 300_000 });
    // 2 left for a day: one request every 12 hours.
    expect(tooLong({ ratelimit: "limit=1200, remaining=2, reset=86400" }).told).toEqual([
      [43_200_000, "Ratelimit: limit=1200, remaining=2, reset=86400"],
    ]);
    expect(tooLong({ ratelimit: "limit=1200, remaining=2, reset=60" }).told).toEqual([]);
  });

  it("an aborted limiter refuses the waiting and every later request at once", async () => {
    const limiter = new RateLimiter({ requests: 100, seconds: 1 });
    limiter.pauseFor(60_000);
    const waiting = limiter.acquire();
    const stop = new Error("stopped");
    limiter.abort(stop);
    await expect(waiting).rejects.toBe(stop);
    await expect(limiter.acquire()).rejects.toBe(stop);
  });

  it("an aborted semaphore refuses the waiting and later holders; the holders keep their place", async () => {
    const sem = new Semaphore(1);
    const held = await sem.acquire();
    const waiting = sem.acquire();
    const stop = new Error("stopped");
    sem.abort(stop);
    await expect(waiting).rejects.toBe(stop);
    await expect(sem.acquire()).rejects.toBe(stop);
    held();
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
