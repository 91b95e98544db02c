// Issue 27.3 for the guided commands that write (`waf-migration start`, `logpush challenge`): a signal
// before the write stops at once with nothing written; during the write, nothing is sent after it (not
// even the status read that follows the switch), the write on the wire is awaited and reported, and
// the exit code is 130 (SIGINT) or 143 (SIGTERM); a second signal exits at once naming the write still
// unanswered. The built CLI runs in a child process through a proxy that notes when each request
// arrives; the emulator holds back each write's answer, so the signal comes while it is on the wire.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TOKEN, TestEmulator } from "../helpers/cli.js";
import { slowWrites, untilAnswered } from "../helpers/fleet.js";
import { HostileProxy } from "../attacks/helpers.js";

const CLI = fileURLToPath(new URL("../../dist/cli/zoneform.js", import.meta.url));
const emu = TestEmulator.perFile();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STACK = /Internal error|\n\s+at /;
const ENTRYPOINT = "rulesets/phases/http_request_firewall_managed/entrypoint";
const S3 = "s3://audit-logs/zone/{DATE}?region=eu-west-1";

let proxy: HostileProxy;
let arrivals: Array<{ method: string; path: string; at: number }> = [];
beforeAll(async () => {
  proxy = await HostileProxy.start(() => emu);
});
afterAll(async () => {
  await proxy.close();
});
beforeEach(async () => {
  proxy.reset();
  arrivals = [];
  proxy.spoil = (req) => {
    arrivals.push({ method: req.method, path: req.path, at: Date.now() });
    return false;
  };
  await emu.admin("DELETE", "/faults");
  await emu.admin("PUT", "/latency", { ms: 0 });
});

const writesArrived = () => arrivals.filter((a) => a.method !== "GET");

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** When the child's first-signal line (or its line for a stop before any write) reached the test. */
  stoppedAt?: number;
}

/** Runs the CLI through the proxy; once `when()` holds, sends `signals` 20 ms apart. */
async function interrupted(argv: string[], when: () => boolean, signals: NodeJS.Signals[]): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...argv, "--api-url", proxy.url], {
    env: { PATH: process.env.PATH, CLOUDFLARE_API_TOKEN: TOKEN },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let stoppedAt: number | undefined;
  child.stdout.on("data", (d) => (stdout += String(d)));
  child.stderr.on("data", (d) => {
    stderr += String(d);
    if (stoppedAt === undefined && /received: sending nothing more|before any change was made/.test(stderr))
      stoppedAt = Date.now();
  });
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("exit", (code, signal) => resolve([code, signal])),
  );
  for (let i = 0; i < 4000 && !when(); i++) await sleep(5);
  for (const [i, signal] of signals.entries()) {
    if (i > 0) await sleep(20);
    child.kill(signal);
  }
  const [code, signal] = await exited;
  return { code, signal, stdout, stderr, ...(stoppedAt !== undefined ? { stoppedAt } : {}) };
}

/** Nothing at all (no write, no read) reached the server after the child said it stopped (50 ms for the pipe). */
function expectNothingAfterStop(r: Run): void {
  expect(r.stoppedAt, r.stderr).toBeDefined();
  const late = arrivals.filter((a) => a.at > r.stoppedAt! + 50);
  expect(late.map((a) => `${a.method} ${a.path} +${a.at - r.stoppedAt!}ms`)).toEqual([]);
}

/** A zone still on the previous WAF managed rules (Pro: straight to the new WAF with --mode pending). */
async function legacyZone(name: string): Promise<string> {
  return (await emu.admin<{ id: string }>("POST", "/zones", { name, plan: "pro", waf_migration: "previous" })).id;
}

const migrationState = async (zoneId: string) =>
  (await emu.api<{ migration_state: string }>("GET", `zones/${zoneId}/waf_migration/status`)).migration_state;

const start = (zoneId: string) => ["waf-migration", "start", "--zone", zoneId, "--mode", "pending", "--yes"];

describe.skipIf(!existsSync(CLI))("signals during the guided commands' writes", () => {
  it("waf-migration start: SIGTERM while the switch is on the wire sends nothing more (not even the status read), reports it landed, exit 143", async () => {
    const z = await legacyZone("sigterm-switch.example");
    await slowWrites(emu, 400);
    const r = await interrupted(start(z), () => writesArrived().length >= 1, ["SIGTERM"]);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code, r.stderr).toBe(143);
    expect(r.stderr).toContain(
      "SIGTERM received: sending nothing more; waiting for the 1 write(s) already sent to be answered",
    );
    expect(r.stderr).toMatch(
      /^ {2}landed {3}PUT \S*zones\/[0-9a-f]{32}\/rulesets\/phases\/http_request_firewall_managed\/entrypoint\S* \(.+\)$/m,
    );
    expect(r.stderr).toContain("Stopped by SIGTERM: the write sent before it was made; nothing more was sent.");
    expect(r.stdout).toContain("Migrated: the new WAF managed rules run, the previous ones are disabled.");
    expectNothingAfterStop(r);
    expect(writesArrived().map((w) => `${w.method} ${w.path}`)).toEqual([`PUT zones/${z}/${ENTRYPOINT}`]);
    await untilAnswered(emu);
    expect(await migrationState(z)).toBe("done");
  }, 30_000);

  it("waf-migration start: SIGTERM while it only reads stops at once, exit 143, nothing written", async () => {
    const z = await legacyZone("sigterm-reading.example");
    await emu.admin("PUT", "/latency", { ms: 200 });
    const r = await interrupted(start(z), () => arrivals.length > 0, ["SIGTERM"]);
    await emu.admin("PUT", "/latency", { ms: 0 });
    expect(r.code, r.stderr).toBe(143);
    expect(r.stderr).toContain("Stopped by SIGTERM before any change was made; nothing was written.");
    expect(writesArrived()).toEqual([]);
    expect(await migrationState(z)).toBe("start");
  }, 30_000);

  it("waf-migration start: a second SIGINT exits at once, exit 130, naming the switch still unanswered", async () => {
    const z = await legacyZone("twice-switch.example");
    await slowWrites(emu, 1000);
    const r = await interrupted(start(z), () => writesArrived().length >= 1, ["SIGINT", "SIGINT"]);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain(
      // The one change is counted once: unanswered, not also "not made" (issue 38).
      "Stopped at once by a second signal. Of 1 change: 0 made, 0 failed, 1 sent but unanswered (they may or " +
        "may not have landed), 0 not made. Nothing was sent after the first signal.",
    );
    expect([...r.stderr.matchAll(/^ {2}unknown {2}PUT \S+entrypoint\S*$/gm)]).toHaveLength(1);
    expectNothingAfterStop(r);
    expect(writesArrived().map((w) => `${w.method} ${w.path}`)).toEqual([`PUT zones/${z}/${ENTRYPOINT}`]);
    // The write sent before the signals still lands on the server.
    await untilAnswered(emu);
    expect(await migrationState(z)).toBe("done");
  }, 30_000);

  it("logpush challenge: SIGTERM while the POST is on the wire sends nothing more, reports it landed, tells the file, exit 143", async () => {
    const { id: z } = await emu.admin<{ id: string }>("POST", "/zones", {
      name: "sigterm-challenge.example",
      plan: "enterprise",
    });
    await slowWrites(emu, 400);
    const r = await interrupted(
      ["logpush", "challenge", "--zone", z, "--destination", S3],
      () => writesArrived().length >= 1,
      ["SIGTERM"],
    );
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code, r.stderr).toBe(143);
    expect(r.stderr).toContain(
      "SIGTERM received: sending nothing more; waiting for the 1 write(s) already sent to be answered",
    );
    expect(r.stderr).toMatch(/^ {2}landed {3}POST \S*zones\/[0-9a-f]{32}\/logpush\/ownership \(.+\)$/m);
    expect(r.stdout).toMatch(/^filename: zone\/ownership-challenge-[0-9a-f]{8}\.txt$/m);
    expectNothingAfterStop(r);
    expect(writesArrived().map((w) => `${w.method} ${w.path}`)).toEqual([`POST zones/${z}/logpush/ownership`]);
  }, 30_000);

  it("logpush challenge: SIGTERM while it looks the zone up stops at once, exit 143, nothing written", async () => {
    await emu.admin("POST", "/zones", { name: "sigterm-lookup.example", plan: "enterprise" });
    await emu.admin("PUT", "/latency", { ms: 200 });
    const r = await interrupted(
      ["logpush", "challenge", "--zone", "sigterm-lookup.example", "--destination", S3],
      () => arrivals.length > 0,
      ["SIGTERM"],
    );
    await emu.admin("PUT", "/latency", { ms: 0 });
    expect(r.code, r.stderr).toBe(143);
    expect(r.stderr).toContain("Stopped by SIGTERM before any change was made; nothing was written.");
    expect(writesArrived()).toEqual([]);
  }, 30_000);
});
