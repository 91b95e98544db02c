// Issue 16.3 and 27.3: SIGINT (Ctrl+C) or SIGTERM during apply stops the writes at once. After the first
// signal no request is sent, not even one queued behind the concurrency cap or a rate-limit wait; the
// writes already on the wire are awaited and reported one by one (landed / failed / unknown); the
// report counts only what was sent; the exit code is 130 after SIGINT and 143 after SIGTERM. A second
// signal exits at once with the same accounting. The built CLI runs in a child process; a proxy in
// front of the emulator notes when each request arrives, so the tests read from that log that no write
// started after the signal.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TOKEN, TestEmulator, runCli, writeConfig, zoneId } from "../helpers/cli.js";
import { applyUntilDone, createFleet, expectConverged, slowWrites, untilAnswered } from "../helpers/fleet.js";
import { HostileProxy } from "../attacks/helpers.js";

const CLI = fileURLToPath(new URL("../../dist/cli/zoneform.js", import.meta.url));
const emu = TestEmulator.perFile();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STACK = /Internal error|\n\s+at /;

/**
 * A write that changes something: not a read, not a Logpush destination check (POSTs that only validate), not
 * Cloudflare's check of a ruleset write (`?dry_run=true`, sent before the first write).
 */
const isChange = (method: string, path: string, query?: URLSearchParams) =>
  method !== "GET" && query?.get("dry_run") !== "true" && !/logpush\/(validate|ownership\/validate)/.test(path);

let proxy: HostileProxy;
/** Every request the proxy saw, with when it arrived; `stopping` makes it answer writes as the test wants. */
let arrivals: Array<{ method: string; path: string; query: URLSearchParams; at: number }> = [];
beforeAll(async () => {
  proxy = await HostileProxy.start(() => emu);
});
afterAll(async () => {
  await proxy.close();
});
beforeEach(() => {
  proxy.reset();
  arrivals = [];
  proxy.spoil = (req) => {
    arrivals.push({ method: req.method, path: req.path, query: req.query, at: Date.now() });
    return false;
  };
});

const writesArrived = () => arrivals.filter((a) => isChange(a.method, a.path, a.query));
const dryRunsArrived = () => arrivals.filter((a) => a.query.get("dry_run") === "true");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** When the child said it stopped sending (its first-signal line reached the test). */
  stoppedAt?: number;
}

/**
 * Runs apply in a child through the proxy; once `when()` holds, sends `signals` one after the other
 * (20 ms apart); resolves with its output and when it said it stopped sending.
 */
async function interrupted(
  config: string,
  env: NodeJS.ProcessEnv,
  when: (stderr: string) => boolean,
  signals: NodeJS.Signals[],
  extra: string[] = [],
): Promise<Run> {
  const child = spawn(
    process.execPath,
    [CLI, "apply", "-c", config, "--auto-approve", "--api-url", proxy.url, ...extra],
    {
      env: { PATH: process.env.PATH, CLOUDFLARE_API_TOKEN: TOKEN, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  let stoppedAt: number | undefined;
  child.stdout.on("data", (d) => (stdout += String(d)));
  child.stderr.on("data", (d) => {
    stderr += String(d);
    if (stoppedAt === undefined && /received: sending nothing more/.test(stderr)) stoppedAt = Date.now();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  for (let i = 0; i < 4000 && !when(stderr); i++) await sleep(5);
  for (const [i, signal] of signals.entries()) {
    if (i > 0) await sleep(20);
    child.kill(signal);
  }
  const code = await exited;
  return { code, stdout, stderr, ...(stoppedAt !== undefined ? { stoppedAt } : {}) };
}

/** No write reached the server after the child said it stopped sending (50 ms for one already in the pipe). */
function expectNoWriteAfterStop(r: Run): void {
  expect(r.stoppedAt, r.stderr).toBeDefined();
  const late = writesArrived().filter((w) => w.at > r.stoppedAt! + 50);
  expect(late.map((w) => `${w.method} ${w.path} +${w.at - r.stoppedAt!}ms`)).toEqual([]);
}

/** The outcome lines of the writes that were on the wire at the signal. */
function outcomeLines(stderr: string): string[] {
  return [...stderr.matchAll(/^ {2}(landed|failed|unknown) +(POST|PUT|PATCH|DELETE) \S+ \(.*\)$/gm)].map((m) => m[1]!);
}

describe.skipIf(!existsSync(CLI))("signals during apply", () => {
  for (const [signal, code, after] of [
    ["SIGINT", 130, 1],
    ["SIGINT", 130, 12],
    ["SIGTERM", 143, 4],
  ] as const) {
    it(`${signal} after ${after} write(s): nothing is sent after it, the writes on the wire are reported ` +
      `one by one, exit ${code}; a new apply converges`, async () => {
      const fleet = await createFleet(emu, 4, `int${signal.toLowerCase()}${after}`);
      await slowWrites(emu, 150);
      await emu.clearRequests();
      const r = await interrupted(fleet.config, fleet.env, () => writesArrived().length >= after, [signal]);
      expect(r.stderr).not.toMatch(STACK);
      expect(r.code, r.stderr).toBe(code);
      const name = signal === "SIGINT" ? "Interrupt \\(SIGINT\\)" : "SIGTERM";
      const said = new RegExp(
        `${name} received: sending nothing more; waiting for the (\\d+) write\\(s\\) already sent`,
      ).exec(r.stderr);
      expect(said, r.stderr).not.toBeNull();
      // Only what was sent is counted: never more than the 8 requests in flight at once.
      const onTheWire = Number(said![1]);
      expect(onTheWire).toBeLessThanOrEqual(8);
      expect(outcomeLines(r.stderr)).toHaveLength(onTheWire);
      expect(outcomeLines(r.stderr).every((o) => o === "landed")).toBe(true);
      expectNoWriteAfterStop(r);
      const made = /(\d+) change\(s\) made, 0 failed, (\d+) not attempted/.exec(r.stderr);
      expect(made, r.stderr).not.toBeNull();
      expect(r.stderr).toContain(
        `apply stopped: ${signal === "SIGINT" ? "interrupted (SIGINT)" : "stopped by SIGTERM"}.`,
      );
      expect(r.stderr).toMatch(/\n {2}not done: {4}int\w+-\d\.example: /);
      // Every write sent was answered (none cut off).
      await untilAnswered(emu);
      expect((await emu.requests()).filter((q) => q.method !== "GET").every((w) => w.status > 0)).toBe(true);
      // Cloudflare checked every ruleset write first: the dry runs all came before the first write.
      const firstWrite = Math.min(...writesArrived().map((w) => w.at));
      expect(dryRunsArrived().length).toBeGreaterThan(0);
      expect(dryRunsArrived().filter((d) => d.at > firstWrite)).toEqual([]);
      await emu.admin("DELETE", "/faults");
      const runs = await applyUntilDone(emu, fleet, [], 1);
      expect(runs[0]!.code, runs[0]!.stderr).toBe(0);
      await expectConverged(emu, fleet);
    }, 60_000);
  }

  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    it(`${signal} before the first write stops at once: exit ${code}, nothing written`, async () => {
      await emu.admin("PUT", "/latency", { ms: 200 });
      const fleet = await createFleet(emu, 2, `early${code}`);
      await emu.clearRequests();
      const r = await interrupted(fleet.config, fleet.env, () => arrivals.length > 0, [signal]);
      await emu.admin("PUT", "/latency", { ms: 0 });
      expect(r.code).toBe(code);
      expect(r.stderr).toContain(
        `${signal === "SIGINT" ? "Interrupted" : "Stopped by SIGTERM"} before any change was made; nothing ` +
          `was written.`,
      );
      expect(writesArrived()).toEqual([]);
    }, 30_000);
  }

  it("SIGINT while Cloudflare checks the ruleset writes (dry runs on the wire): exit 130, nothing written", async () => {
    const fleet = await createFleet(emu, 2, "dryint");
    // Every write held back: the signal comes while the dry runs, the first requests that are not reads, wait.
    await slowWrites(emu, 1000);
    await emu.clearRequests();
    // The child's own line says its checks began: a dry run alone may be a stray one from a run before.
    const checking = (stderr: string) => stderr.includes("Checking ") && dryRunsArrived().length > 0;
    const r = await interrupted(fleet.config, fleet.env, checking, ["SIGINT"]);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain("Checking ");
    expect(r.stderr).toContain("Interrupted before any change was made; nothing was written.");
    expect(writesArrived()).toEqual([]);
    await emu.admin("DELETE", "/faults");
    await untilAnswered(emu);
    const log = await emu.requests();
    expect(log.filter((q) => isChange(q.method, q.path, new URLSearchParams(q.query)))).toEqual([]);
    const again = await runCli(emu, ["apply", "-c", fleet.config, "--auto-approve"], { env: fleet.env });
    expect(again.code, again.stderr).toBe(0);
    await expectConverged(emu, fleet);
  }, 60_000);

  it("a second SIGINT exits at once, exit 130, naming the writes still on the wire; a new apply converges", async () => {
    const fleet = await createFleet(emu, 4, "twice");
    // Slow writes (reads at full speed): the two interrupts come while the first writes are in flight.
    await slowWrites(emu, 1000);
    await emu.clearRequests();
    const r = await interrupted(fleet.config, fleet.env, () => writesArrived().length >= 1, ["SIGINT", "SIGINT"]);
    expect(r.code).toBe(130);
    expect(r.stderr).not.toMatch(STACK);
    const said =
      /Stopped at once by a second signal\. Of (\d+) changes?: 0 made, 0 failed, (\d+) sent but unanswered \(they may or may not have landed\), (\d+) not made\. Nothing was sent after the first signal\./.exec(
        r.stderr,
      );
    expect(said, r.stderr).not.toBeNull();
    // Each change counted once: the counts add up to the plan's changes.
    expect(Number(said![2]) + Number(said![3])).toBe(Number(said![1]));
    expect(Number(said![2])).toBeLessThanOrEqual(8);
    expect([...r.stderr.matchAll(/^ {2}unknown {2}(POST|PUT|PATCH|DELETE) /gm)]).toHaveLength(Number(said![2]));
    expectNoWriteAfterStop(r);
    await emu.admin("DELETE", "/faults");
    await untilAnswered(emu);
    const again = await runCli(emu, ["apply", "-c", fleet.config, "--auto-approve"], { env: fleet.env });
    expect(again.code, again.stderr).toBe(0);
    await expectConverged(emu, fleet);
  }, 60_000);

  it("SIGTERM during a rate-limit wait sends nothing more, not even the write that waited, and exits 143", async () => {
    const fleet = await createFleet(emu, 2, "ratewait");
    await emu.clearRequests();
    // The first write's answer says the budget is used up for 60 s (within the 5-minute cap): every
    // request waits; the signal comes during that wait.
    let told = false;
    proxy.spoil = async (req, res, forward) => {
      arrivals.push({ method: req.method, path: req.path, query: req.query, at: Date.now() });
      if (told || !isChange(req.method, req.path, req.query)) return false;
      told = true;
      const up = await forward();
      res.writeHead(up.status, { ...up.headers, ratelimit: "limit=1200, remaining=0, reset=60" }).end(up.body);
      return true;
    };
    const t0 = Date.now();
    let waitAt: number | undefined;
    const r = await interrupted(
      fleet.config,
      fleet.env,
      (err) => /waiting 60 s for the rate limit/.test(err) && (waitAt ??= Date.now()) > 0,
      ["SIGTERM"],
    );
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code, r.stderr).toBe(143);
    expect(Date.now() - t0, r.stderr).toBeLessThan(15_000);
    expect(r.stderr).toContain("the server says the shared budget is used up");
    // The writes sent before the budget ran out, and nothing once the wait began.
    expect(writesArrived().filter((w) => w.at > waitAt! + 50)).toEqual([]);
    // Writes sent before the wait began may still be on the wire (at most the 8 of --parallelism).
    const onWire = Number(
      /SIGTERM received: sending nothing more; waiting for the (\d+) write\(s\) already sent/.exec(r.stderr)?.[1],
    );
    expect(onWire, r.stderr).toBeLessThanOrEqual(8);
    expect(r.stderr.match(/^ {2}landed /gm)?.length ?? 0, r.stderr).toBe(onWire);
    expect(r.stderr).toContain(
      `${writesArrived().length} change(s) made, 0 failed, ${18 - writesArrived().length} not attempted`,
    );
  }, 60_000);

  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    it(`${signal} once every write was sent: they land, one stderr line says all were made, exit ${code}`, async () => {
      // Three changes of one zone that go out at once (Page Shield on, two policies), their writes held by the
      // emulator: the signal comes once all three are on the wire.
      const name = `allsent-${code}.example`;
      await emu.admin("POST", "/zones", { name, plan: "enterprise" });
      const policy = (description: string, action: string, expression: string) =>
        `        - { description: ${description}, action: ${action}, expression: '${expression}', ` +
        `value: "script-src 'self'" }\n`;
      const config = await writeConfig(
        `version: 1\nzones:\n  - zone_id: ${zoneId(name)}\n    page_shield:\n      enabled: true\n      policies:\n` +
          policy("Checkout", "allow", 'http.request.uri.path contains "/checkout"') +
          policy("Rest", "log", 'not http.request.uri.path contains "/checkout"'),
      );
      await slowWrites(emu, 600);
      const r = await interrupted(config, {}, () => writesArrived().length === 3, [signal]);
      expect(r.stderr).not.toMatch(STACK);
      expect(r.code, r.stderr).toBe(code);
      // stdout: the plan and the line that starts the writes; no "Apply complete!" beside a stopped run's code.
      expect(r.stdout).toMatch(/Applying plan sha256:[0-9a-f]{64}\n$/);
      expect(r.stdout).not.toContain("Apply complete");
      // stderr: the signal, each write as it landed, then one line saying every change was made.
      const name_ = signal === "SIGINT" ? "Interrupt (SIGINT)" : "SIGTERM";
      expect(r.stderr).toContain(`${name_} received: sending nothing more; waiting for the 3 write(s) already sent`);
      expect(outcomeLines(r.stderr)).toEqual(["landed", "landed", "landed"]);
      expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(
        `${signal} came after the last change had been sent: every change was made, 3 of 3 (2 created, 1 updated, ` +
          `0 replaced, 0 deleted), and nothing was left undone; exit ${code}, as after any ${signal}.`,
      );
      expect(r.stderr).not.toMatch(/Error:|apply stopped|interrupted|not attempted|not done/);
      expect(writesArrived()).toHaveLength(3);
      // What the report says is what the zone holds: a new plan has nothing to do.
      await emu.admin("DELETE", "/faults");
      const again = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
      expect(again.code, again.stdout + again.stderr).toBe(0);
    });
  }

  it("SIGINT during a replace's create: its delete is not sent, the create landed, exit 130", async () => {
    // A Logpush job's kind cannot change in place: the new job is created, then the old one deleted.
    const name = "replace-int.example";
    const zone = zoneId(name);
    await emu.admin("POST", "/zones", { name, plan: "enterprise" });
    const r2 = "r2://logs/http/{DATE}?account-id=0123456789abcdef0123456789abcdef&access-key-id=";
    const old = await emu.api<{ id: number }>("POST", `zones/${zone}/logpush/jobs`, {
      name: "to-r2",
      dataset: "http_requests",
      enabled: true,
      destination_conf: `${r2}k1&secret-access-key=s1`,
    });
    const config = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${zone}\n    logs:\n      logpush_jobs:\n        - name: to-r2\n` +
        "          dataset: http_requests\n          kind: edge\n" +
        `          destination_conf: "${r2}\${env:R2_ID}&secret-access-key=\${env:R2_SECRET}"\n`,
    );
    await slowWrites(emu, 600);
    const env = { R2_ID: "k1", R2_SECRET: "s1" };
    const r = await interrupted(config, env, () => writesArrived().length === 1, ["SIGINT"]);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toContain("Plan: 0 to create, 0 to update, 1 to replace, 0 to delete.");
    expect(r.stdout).not.toContain("Apply complete");
    expect(writesArrived().map((w) => `${w.method} ${w.path}`)).toEqual([`POST zones/${zone}/logpush/jobs`]);
    expect(r.stderr).toMatch(new RegExp(`\\n {2}landed {3}POST zones/${zone}/logpush/jobs \\(HTTP 200\\)\\n`));
    expect(r.stderr).toContain("0 change(s) made, 1 failed (1 of them may have been written), 0 not attempted.");
    expect(r.stderr).toMatch(/\n {2}failed: {6}\w+: -\/\+ logpush_job "to-r2": interrupted \(SIGINT\)/);
    // The old job is still there beside the new one: the next apply deletes it.
    await emu.admin("DELETE", "/faults");
    const live = await emu.api<Array<{ id: number }>>("GET", `zones/${zone}/logpush/jobs`);
    expect(live.map((j) => j.id)).toContain(old.id);
    expect(live).toHaveLength(2);
  });
});
