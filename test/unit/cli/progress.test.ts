// Progress on stderr (issue 16 item 2): the pure formatting, the renderer's throttling on and off a
// terminal with a fake clock and a fake timer, and what the rate limiter tells it about waits.
import { describe, expect, it, vi } from "vitest";
import { RateLimiter, WAIT_REASONS } from "../../../src/cloudflare/rate-limiter.js";
import { memoryIO } from "../../../src/cli/io.js";
import {
  createProgress,
  formatDuration,
  formatProgress,
  formatWait,
  heartbeatFromEnv,
  progressFor,
  type ProgressSource,
} from "../../../src/cli/progress.js";
import { estimateEta, type Samples } from "../../../src/cli/progress-eta.js";
import { UsageError } from "../../../src/errors.js";

describe("progress formatting", () => {
  it("formats durations as people read them", () => {
    expect(formatDuration(0)).toBe("0.0 s");
    expect(formatDuration(1940)).toBe("2.0 s");
    expect(formatDuration(1210)).toBe("1.3 s");
    expect(formatDuration(41_000)).toBe("41 s");
    expect(formatDuration(89_400)).toBe("89 s");
    expect(formatDuration(125_000)).toBe("2m");
    expect(formatDuration(95 * 60_000)).toBe("1h 35m");
  });

  it("formats the heartbeat line", () => {
    expect(
      formatProgress({
        label: "plan",
        done: 144,
        total: 300,
        unit: "zones read",
        requests: 1021,
        budget: { remaining: 179, requests: 1200, seconds: 300 },
        etaMs: 125_000,
      }),
    ).toBe("plan: 144/300 zones read, 1021 requests, rate limit 179/1200 left, about 2m left");
    expect(
      formatProgress({
        label: "audit",
        done: 0,
        total: 1,
        unit: "zones done",
        counts: [
          ["scripts", 12000],
          ["connections", 300],
        ],
        requests: 1,
      }),
    ).toBe("audit: 0/1 zones done, 12000 scripts, 300 connections read, 1 request");
    expect(formatProgress({ label: "export", done: 2, unit: "zones read" })).toBe("export: 2 zones read");
  });

  it("says how long and why it waits for the rate limit", () => {
    expect(formatWait(41_000, WAIT_REASONS.retryAfter, { requests: 1200, seconds: 300 })).toBe(
      "waiting 41 s for the rate limit (1200 requests per 300 s; the server asked to wait after a 429)",
    );
    expect(formatWait(1900, WAIT_REASONS.window, { requests: 10, seconds: 2 })).toBe(
      "waiting 1.9 s for the rate limit (10 requests per 2 s; this run has sent them all)",
    );
    expect(formatWait(5000, "why")).toBe("waiting 5.0 s for the rate limit (why)");
  });

  it("estimates the time left from the rate, or from the rate limit's window when the budget is the bound", () => {
    // 1 unit every 100 ms: at 2 s, 21 of 101 done, 80 left at 10 a second.
    const marks = every(100, 21, -100);
    expect(estimateEta({ now: 2000, startedAt: 0, marks, total: 101 })).toBe(8000);
    expect(estimateEta({ now: 2000, startedAt: 0, marks })).toBeUndefined();
    expect(estimateEta({ now: 2000, startedAt: 0, marks, total: 21 })).toBeUndefined();
    // 10 requests a unit, 80 left: 800, 100 within the budget left; the 700th past it goes when the 700th
    // of the 1100 in the window (all sent at 0) leaves it, at 300 s: the window bounds it, not the rate.
    const budget = { remaining: 100, requests: 1200, seconds: 300 };
    const at = (t: number): Samples => [
      [t, 1100],
      [2000, 1310],
    ];
    const bound = { now: 2000, startedAt: 0, marks, total: 101, requests: 210, budget };
    expect(estimateEta({ ...bound, sent: at(0) })).toBe(298_000);
    // Sent 298 s before, they leave the window now: the rate bounds it again.
    expect(estimateEta({ ...bound, sent: at(-298_000) })).toBe(8000);
  });
});

/** `n` units done, one every `ms` from `ms` on (plus `from`). */
function every(ms: number, n: number, from = 0): Samples {
  return Array.from({ length: n }, (_, i) => [from + (i + 1) * ms, i + 1] as const);
}

/** A renderer on a fake clock and a fake timer, writing into memory. */
function rig(opts: { tty?: boolean; enabled?: boolean; columns?: number; source?: ProgressSource } = {}) {
  const { io, stderr } = memoryIO({ tty: opts.tty });
  let t = 1_000_000;
  let timers = 0;
  let stopped = 0;
  const progress = createProgress({
    out: io.stderr,
    enabled: opts.enabled,
    now: () => t,
    heartbeatMs: 5000,
    columns: () => opts.columns,
    every: () => {
      timers++;
      return () => void stopped++;
    },
  });
  if (opts.source) progress.watch(opts.source);
  return {
    progress,
    stderr,
    advance(ms: number) {
      t += ms;
      progress.tick();
    },
    timers: () => timers,
    stopped: () => stopped,
  };
}

const source = (requests: number, remaining = 90): ProgressSource => ({
  stats: () => ({ requests }),
  budget: () => ({ remaining, requests: 100, seconds: 10 }),
});

describe("progress off a terminal", () => {
  it("writes nothing when the work is done before the first heartbeat", () => {
    const r = rig({ source: source(3) });
    r.progress.begin("plan", "zones read", 4);
    r.advance(1000);
    r.progress.update(2);
    r.advance(3900);
    r.progress.update(4);
    r.progress.end();
    expect(r.stderr()).toBe("");
    expect(r.timers()).toBe(1);
    expect(r.stopped()).toBe(1);
  });

  it("writes a heartbeat line at most every heartbeat interval", () => {
    const r = rig({ source: source(12, 40) });
    r.progress.begin("plan", "zones read", 4);
    r.progress.update(1);
    r.advance(4999);
    expect(r.stderr()).toBe("");
    r.advance(1);
    // One zone of four: the rate is not known yet, no ETA.
    expect(r.stderr()).toBe("plan: 1/4 zones read, 12 requests, rate limit 40/100 left\n");
    r.advance(1000);
    r.advance(3000);
    expect(r.stderr().split("\n")).toHaveLength(2);
    r.advance(1000);
    expect(r.stderr().split("\n")).toHaveLength(3);
    r.progress.end();
    r.advance(10_000);
    expect(r.stderr().split("\n")).toHaveLength(3);
  });

  it("gives a wait longer than a second a line of its own, once", () => {
    const r = rig({ source: source(100, 0) });
    r.progress.begin("plan", "zones read", 4);
    r.progress.onWait(400, WAIT_REASONS.window);
    expect(r.stderr()).toBe("");
    r.progress.onWait(41_000, WAIT_REASONS.retryAfter);
    expect(r.stderr()).toBe(
      "waiting 41 s for the rate limit (100 requests per 10 s; the server asked to wait after a 429)\n",
    );
    // The same pause extended a little (more 429s answered): no new line.
    r.advance(100);
    r.progress.onWait(41_300, WAIT_REASONS.retryAfter);
    expect(r.stderr().split("\n")).toHaveLength(2);
    // A new wait after that one: a new line.
    r.advance(42_000);
    r.progress.onWait(2_000, WAIT_REASONS.window);
    expect(r.stderr()).toContain(
      "waiting 2.0 s for the rate limit (100 requests per 10 s; this run has sent them all)\n",
    );
  });

  it("counts items per kind and starts each phase afresh", () => {
    const r = rig({ source: source(7) });
    r.progress.begin("audit", "zones done", 2);
    for (let i = 0; i < 1500; i++) r.progress.count("scripts");
    r.progress.count("connections", 20);
    r.advance(5000);
    expect(r.stderr()).toBe(
      "audit: 0/2 zones done, 1500 scripts, 20 connections read, 7 requests, rate limit 90/100 left\n",
    );
    r.progress.begin("apply", "changes made", 9);
    r.advance(5000);
    expect(r.stderr()).toContain("\napply: 0/9 changes made, 7 requests, rate limit 90/100 left\n");
  });

  it("with --quiet writes log lines only", () => {
    const r = rig({ enabled: false, source: source(7) });
    r.progress.begin("plan", "zones read", 2);
    r.progress.onWait(41_000, WAIT_REASONS.retryAfter);
    r.advance(60_000);
    r.progress.log("GET zones 200 3ms");
    r.progress.end();
    expect(r.stderr()).toBe("GET zones 200 3ms\n");
    expect(r.timers()).toBe(0);
  });
});

describe("honest progress (issue 30 item 4)", () => {
  it("takes the ETA from the rate of the unit counted in this phase, not from every request of the run", () => {
    // The plan before the apply made 2200 reads; the apply then makes 2 requests a change.
    let requests = 2200;
    const r = rig({
      source: { stats: () => ({ requests }), budget: () => ({ remaining: 100, requests: 1200, seconds: 300 }) },
    });
    r.progress.begin("apply", "changes made", 9);
    requests += 6;
    r.advance(5000);
    r.progress.update(1);
    r.advance(5000);
    r.progress.update(2);
    r.advance(4999);
    r.progress.update(3);
    r.advance(1);
    // 1 change every 5 s, 6 left: 30 s. Dividing the run's 2206 requests by 3 changes would ask for 4412
    // requests beyond the budget: about 18m left, 36 times too long.
    expect(r.stderr().split("\n")[2]).toBe(
      "apply: 3/9 changes made, 2206 requests, rate limit 100/1200 left, about 30 s left",
    );
  });

  it("off a terminal, beats at a steady interval however late the timer runs", () => {
    const r = rig({ source: source(3) });
    r.progress.begin("plan", "zones read", 40);
    for (let i = 0; i < 5; i++) r.advance(3000);
    // Due at 5, 10 and 15 s: three lines by 15 s (a late tick does not push the next beat back).
    expect(r.stderr().trim().split("\n")).toHaveLength(3);
  });

  it("shows the current wait of a retry in the heartbeat, with no line of its own", () => {
    const r = rig({ source: source(3) });
    r.progress.begin("plan", "zones read", 4);
    r.advance(1000);
    r.progress.onWait(8000, "GET zones/abc/page_shield answered HTTP 503", "retry");
    expect(r.stderr()).toBe("");
    r.advance(4000);
    expect(r.stderr()).toBe(
      "plan: 0/4 zones read, waiting 4.0 s to retry (GET zones/abc/page_shield answered HTTP 503)\n",
    );
    r.advance(5000);
    expect(r.stderr().split("\n")[1]).toBe("plan: 0/4 zones read, 3 requests, rate limit 90/100 left");
  });

  it("shows a wait for the rate limit in the heartbeat as well as in its own line", () => {
    const r = rig({ source: source(3, 0) });
    r.progress.begin("apply", "changes made", 4);
    r.progress.onWait(30_000, WAIT_REASONS.window);
    r.advance(5000);
    expect(r.stderr().split("\n")).toEqual([
      "waiting 30 s for the rate limit (100 requests per 10 s; this run has sent them all)",
      "apply: 0/4 changes made, waiting 25 s for the rate limit (100 requests per 10 s; this run has sent them all)",
      "",
    ]);
  });
});

describe("progress on a terminal", () => {
  it("redraws one line in place, only when it changed, and erases it", () => {
    const r = rig({ tty: true, source: source(5) });
    r.progress.begin("plan", "zones read", 4);
    r.advance(250);
    expect(r.stderr()).toBe("\rplan: 0/4 zones read, 5 requests, rate limit 90/100 left\u001b[K");
    r.advance(250);
    expect(r.stderr().split("\r")).toHaveLength(2);
    for (const done of [1, 2, 3]) {
      r.progress.update(done);
      r.advance(500);
    }
    // 3 done but only 1.5 s since the first: no ETA yet.
    expect(r.stderr()).toMatch(/\rplan: 3\/4 zones read, 5 requests, rate limit 90\/100 left\u001b\[K$/);
    r.advance(500);
    // 2 more in the 2 s since the first, 1 left.
    expect(r.stderr()).toMatch(
      /\rplan: 3\/4 zones read, 5 requests, rate limit 90\/100 left, about 1\.0 s left\u001b\[K$/,
    );
    r.progress.clear();
    expect(r.stderr().endsWith("\r\u001b[K")).toBe(true);
    const before = r.stderr().length;
    r.progress.clear();
    expect(r.stderr().length).toBe(before);
    r.advance(250);
    r.progress.end();
    expect(r.stderr().endsWith("\r\u001b[K")).toBe(true);
  });

  it("shows a wait in the line, counting down, and no line of its own", () => {
    const r = rig({ tty: true, columns: 200, source: source(10, 0) });
    r.progress.begin("plan", "zones read", 4);
    r.progress.onWait(41_000, WAIT_REASONS.retryAfter);
    expect(r.stderr()).toBe("");
    r.advance(1000);
    expect(r.stderr()).toBe(
      "\rplan: 0/4 zones read, waiting 40 s for the rate limit (100 requests per 10 s; the server asked to " +
        "wait after a 429)\u001b[K",
    );
    r.advance(40_000);
    expect(r.stderr().slice(r.stderr().lastIndexOf("\r"))).toBe(
      "\rplan: 0/4 zones read, 10 requests, rate limit 0/100 left\u001b[K",
    );
  });

  it("cuts the line to the terminal's width", () => {
    const r = rig({ tty: true, columns: 40, source: source(10) });
    r.progress.begin("plan", "zones read", 400);
    r.advance(250);
    const line = r.stderr().slice(1, -"\u001b[K".length);
    expect(line).toHaveLength(39);
    expect(line.endsWith("…")).toBe(true);
  });

  it("keeps the line whole around log lines", () => {
    const r = rig({ tty: true, source: source(1) });
    r.progress.begin("plan", "zones read", 1);
    r.advance(250);
    r.progress.log("GET zones 200 3ms");
    expect(r.stderr()).toBe(
      "\rplan: 0/1 zones read, 1 request, rate limit 90/100 left\u001b[K\r\u001b[KGET zones 200 3ms\n",
    );
  });
});

describe("progressFor", () => {
  it("reads ZONEFORM_HEARTBEAT in seconds and refuses nonsense", () => {
    expect(heartbeatFromEnv({})).toBe(5000);
    expect(heartbeatFromEnv({ ZONEFORM_HEARTBEAT: "1" })).toBe(1000);
    expect(heartbeatFromEnv({ ZONEFORM_HEARTBEAT: "0.5" })).toBe(500);
    expect(() => heartbeatFromEnv({ ZONEFORM_HEARTBEAT: "0" })).toThrow(UsageError);
    expect(() => heartbeatFromEnv({ ZONEFORM_HEARTBEAT: "5s" })).toThrow(/ZONEFORM_HEARTBEAT/);
  });

  it("uses heartbeat lines on a dumb terminal", () => {
    const { io, stderr } = memoryIO({ tty: true, env: { TERM: "dumb" } });
    const p = progressFor(io, {});
    p.onWait(3000, WAIT_REASONS.window);
    expect(stderr()).toBe("waiting 3.0 s for the rate limit (this run has sent them all)\n");
    p.end();
  });
});

describe("rate limiter waits, as progress hears of them", () => {
  it("says nothing while requests flow, and how long and why once the window is used up", async () => {
    let now = 1000;
    const waits: Array<[number, string]> = [];
    const limiter = new RateLimiter({
      requests: 2,
      seconds: 10,
      now: () => now,
      onWait: (ms, reason) => waits.push([ms, reason]),
    });
    const a = await limiter.acquire();
    a.done();
    expect(limiter.budget()).toEqual({ remaining: 1, requests: 2, seconds: 10 });
    (await limiter.acquire()).done();
    expect(waits).toEqual([]);
    const third = limiter.acquire();
    expect(waits).toEqual([[10_001, WAIT_REASONS.window]]);
    // Asked again (another caller queues): the same wait is not told twice.
    const fourth = limiter.acquire();
    expect(waits).toHaveLength(1);
    now += 10_001;
    limiter.pauseFor(0);
    (await third).done();
    (await fourth).done();
    expect(waits).toHaveLength(1);
    limiter.close();
  });

  it("tells a 429's pause and the server's used-up budget apart", () => {
    const now = 5000;
    const waits: Array<[number, string]> = [];
    const limiter = new RateLimiter({
      requests: 100,
      seconds: 60,
      now: () => now,
      onWait: (ms, reason) => waits.push([ms, reason]),
    });
    limiter.pauseFor(2000, "HTTP 429 from Cloudflare (GET)");
    limiter.pauseFor(1000, "HTTP 429 from Cloudflare (GET)");
    limiter.observe({ ratelimit: "limit=100, remaining=0, reset=7" });
    expect(waits).toEqual([
      [2000, WAIT_REASONS.retryAfter],
      [7000, WAIT_REASONS.serverBudget],
    ]);
    expect(limiter.budget().remaining).toBe(0);
    limiter.close();
  });
});

describe("an honest ETA (issue 47)", () => {
  it("shows none before the rate is measured: 3 units done and 2 s since the first", () => {
    const eta = (now: number, marks: Samples) => estimateEta({ now, startedAt: 0, marks, total: 100 });
    expect(eta(60_000, [])).toBeUndefined();
    expect(eta(60_000, every(1000, 2))).toBeUndefined();
    expect(eta(1900, every(10, 50))).toBeUndefined();
    // Three at once and nothing since: no rate can be told from them.
    expect(eta(5000, [[2000, 3]])).toBeUndefined();
    expect(eta(2010, every(10, 50))).toBeGreaterThan(0);
  });

  it("a steady rate: the units left at it", () => {
    // 8 in flight at 200 ms a unit, 240 units: 40 a second, 6 s in all.
    const marks: Samples = Array.from({ length: 240 }, (_, i) => [(Math.floor(i / 8) + 1) * 200, i + 1] as const);
    const at = (now: number) => estimateEta({ now, startedAt: 0, marks: marks.filter(([t]) => t <= now), total: 240 });
    expect(at(2000)).toBeUndefined();
    // 88 done, 152 left: 3.8 s, as it is.
    expect(at(2200)).toBe(3800);
    for (let now = 2300; now < 6000; now += 100) expect(within2x(at(now)!, 6000 - now, 200)).toBe(true);
  });

  it("a slow first unit does not hold the ETA high (issue 38: 40 zones, the first takes 7 s, then 1 a second)", () => {
    // At a fifth done, 8 zones in 14 s: 32 s left. The rate of the whole phase would say 56 s.
    const marks: Samples = [[7000, 1], ...every(1000, 7, 7000).map(([t, n]) => [t, n + 1] as const)];
    expect(estimateEta({ now: 14_000, startedAt: 0, marks, total: 40 })).toBe(32_000);
  });

  it("a wait for the rate limit: the rate before it plus what is left of it, and after it the rate without it", () => {
    // 10 a second for 10 s, 100 of 300; then every request held 20 s (a 429).
    const before = every(100, 100);
    const waits: Samples = [[10_000, 30_000]];
    // 5 s into the wait: 15 s of it left, then 200 units at 10 a second: 35 s.
    expect(estimateEta({ now: 15_000, startedAt: 0, marks: before, total: 300, waits })).toBe(35_000);
    // 2 s after it, 20 more done: 18 s left. Counting the wait as time worked would say 48 s.
    const after = [...before, ...every(100, 20, 30_000).map(([t, n]) => [t, n + 100] as const)];
    expect(estimateEta({ now: 32_000, startedAt: 0, marks: after, total: 300, waits })).toBe(18_000);
  });

  it("a retry's wait holds one call: the ETA is at least that wait", () => {
    const marks = every(100, 21, -100);
    expect(estimateEta({ now: 2000, startedAt: 0, marks, total: 22 })).toBe(100);
    expect(estimateEta({ now: 2000, startedAt: 0, marks, total: 22, retryUntil: 6000 })).toBe(4000);
  });

  // Runs on a fake clock through the real rate limiter: every ETA shown from a fifth done on is within 2x of
  // the time the run really took from there, give or take a call and a heartbeat (the ETA cannot know how
  // far along the calls in flight are).
  const runs: Array<[string, SimOptions, slackMs: number, judgedFrom?: number]> = [
    ["240 changes at 200 ms, 8 at once", { units: 240, parallel: 8, latencyMs: () => 200 }, 300],
    ["a slow first round (2 s)", { units: 120, parallel: 8, latencyMs: (i) => (i >= 1 && i < 9 ? 2000 : 200) }, 300],
    ["one at a time, the first 7 s", { units: 40, parallel: 1, latencyMs: (i) => (i === 0 ? 7000 : 1000) }, 1100],
    ["calls of 100 to 400 ms", { units: 240, parallel: 8, latencyMs: (i) => 100 + ((i * 7919) % 300) }, 500],
    [
      "the rate limit's window (60 requests per 3 s)",
      { units: 240, parallel: 8, latencyMs: () => 200, limit: { requests: 60, seconds: 3 } },
      300,
    ],
    [
      "the rate limit's window (40 requests per 2 s)",
      { units: 120, parallel: 8, latencyMs: () => 200, limit: { requests: 40, seconds: 2 } },
      300,
    ],
    // A 429 cannot be foreseen: judged from the pause on.
    [
      "a 10 s pause after a 429",
      { units: 240, parallel: 8, latencyMs: () => 200, pause: { at: 100, ms: 10_000 } },
      300,
      100,
    ],
  ];
  for (const [name, o, slackMs, judgedFrom = 0] of runs) {
    it(`within 2x once a fifth is done: ${name}`, async () => {
      const r = await simulate(o);
      const judged = r.etas.filter((e) => e.done >= Math.max(o.units / 5, judgedFrom));
      expect(judged.length).toBeGreaterThanOrEqual(5);
      const off = judged.filter((e) => !within2x(e.etaMs, r.endAt - e.at, slackMs));
      expect(off.map((e) => `${e.done} done at ${e.at} ms: ${e.etaMs} ms shown, ${r.endAt - e.at} ms true`)).toEqual(
        [],
      );
    });
  }
});

/** `eta` within 2x of `truth`, give or take `slackMs`. */
function within2x(eta: number, truth: number, slackMs = 0): boolean {
  return eta <= 2 * truth + slackMs && eta >= truth / 2 - slackMs;
}

interface SimOptions {
  units: number;
  parallel: number;
  latencyMs: (i: number) => number;
  limit?: { requests: number; seconds: number };
  pause?: { at: number; ms: number };
}

/**
 * A run on a fake clock: `units` changes of one request each, `parallel` at once, through a real rate
 * limiter; the ETA of each heartbeat (every 100 ms), with when and how many were done, and when the last was.
 */
async function simulate(o: SimOptions) {
  vi.useFakeTimers();
  try {
    const t0 = Date.now();
    const etas: Array<{ at: number; done: number; etaMs: number }> = [];
    const out = {
      isTTY: false,
      write(line: string) {
        const m = /^apply: (\d+)\/\d+ .*about (?:([\d.]+) s|(\d+)m) left/.exec(line);
        if (m)
          etas.push({
            at: Date.now() - t0,
            done: Number(m[1]),
            etaMs: m[2] ? Number(m[2]) * 1000 : Number(m[3]) * 60_000,
          });
      },
    };
    const progress = createProgress({
      out,
      heartbeatMs: 100,
      every: (ms, fn) => {
        const t = setInterval(fn, ms);
        return () => clearInterval(t);
      },
    });
    const limiter = new RateLimiter({
      ...(o.limit ?? { requests: 100_000, seconds: 300 }),
      onWait: (ms, why) => progress.onWait(ms, why),
    });
    let sent = 0;
    let done = 0;
    let next = 0;
    let endAt = 0;
    progress.watch({ stats: () => ({ requests: sent }), budget: () => limiter.budget() });
    progress.begin("apply", "changes made", o.units);
    const worker = async () => {
      while (next < o.units) {
        const i = next++;
        const permit = await limiter.acquire();
        sent++;
        await new Promise((r) => setTimeout(r, o.latencyMs(i)));
        permit.done();
        progress.update(++done);
        if (o.pause && done === o.pause.at) limiter.pauseFor(o.pause.ms, "HTTP 429");
        if (done === o.units) endAt = Date.now() - t0;
      }
    };
    const run = Promise.all(Array.from({ length: o.parallel }, worker));
    while (done < o.units) await vi.advanceTimersByTimeAsync(10);
    await run;
    progress.end();
    limiter.close();
    return { etas, endAt };
  } finally {
    vi.useRealTimers();
  }
}
