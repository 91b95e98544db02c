// Progress off a terminal (issue 16 item 2), through the built CLI with stderr a pipe, as in CI: a
// rate-limited plan writes heartbeat lines and says when it waits for the rate limit, how long and
// why, while stdout holds the plan alone; --quiet writes none of it; an audit of a generated inventory
// writes heartbeats counting the items read. This is the wiring: the heartbeat's timing, the ETA and
// which waits get a line are tested on a driven clock in test/unit/cli/progress.test.ts. Here the
// heartbeat is 0.1 s (ZONEFORM_HEARTBEAT) and the rate limit small, so that a run of a second and a
// half shows heartbeats and one wait (a wait gets a line from 1 s on, so no run here is shorter).
// Then issue 47: every ETA an apply shows once a fifth of its changes are made is within 2x of the time
// it really took from there, timed by the child's own clock.
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TOKEN, TestEmulator, ZONE, tempDir, writeConfig, zoneId } from "../helpers/cli.js";
import { BUILT_CLI, runBuilt } from "../attacks/helpers.js";
import { slowWrites } from "../helpers/fleet.js";

const emu = TestEmulator.perFile();

const ZONES = ["example.com", "example.net"];

/** Two zones of the seed, three reads each (Page Shield settings and policies, custom fields). */
async function twoZones(): Promise<string> {
  const zones = ZONES.map(
    (name) => `  - zone_id: ${zoneId(name)}
    name: ${name}
    page_shield:
      enabled: true
      policies:
        - description: Report everything
          action: log
          expression: http.host eq "${name}"
          value: script-src 'none'
    logs:
      custom_fields:
        request_headers: [user-agent]
`,
  );
  return writeConfig(`version: 1\nzones:\n${zones.join("")}`);
}

/**
 * Three requests per 1.5 s: the first three go at once and are answered within milliseconds, the
 * fourth waits for the window, about 1.5 s, longer than the 1 s from which a wait gets a line.
 */
const RATE = "3/1.5s";
/** A heartbeat: the counts, then the budget and ETA, or the wait under way (issue 30: the current wait). */
const HEARTBEAT =
  /^plan: \d\/2 zones read, (\d+ requests, rate limit \d\/3 left(, about [\d.]+ s left)?|waiting [\d.]+ s for the rate limit \(3 requests per 1\.5 s; this run has sent them all\))$/;
const WAIT = /^waiting 1\.\d s for the rate limit \(3 requests per 1\.5 s; this run has sent them all\)$/;

describe("progress on stderr when it is not a terminal", () => {
  it("a rate-limited plan writes heartbeats and its waits for the rate limit; stdout is the plan alone", async () => {
    const config = await twoZones();
    const r = await runBuiltCli(["plan", "-c", config, "--rate-limit", RATE]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split("\n").filter((l) => l !== "");
    // Every line is a heartbeat or a wait: nothing else, no carriage return or escape sequence.
    for (const l of lines) expect(l).toMatch(new RegExp(`${HEARTBEAT.source}|${WAIT.source}`));
    expect(lines.filter((l) => HEARTBEAT.test(l)).length).toBeGreaterThanOrEqual(2);
    // A wait at least: after the third request.
    expect(lines.filter((l) => WAIT.test(l)).length).toBeGreaterThanOrEqual(1);
    expect(r.stdout).toMatch(/^# example\.com \(/);
    expect(r.stdout).toMatch(
      /Plan: 4 to create, 2 to update, 0 to replace, 0 to delete\.\nPlan digest: sha256:[0-9a-f]{64}\n$/,
    );
    expect(r.stdout).not.toMatch(/zones read|waiting|rate limit/);
  });

  it("--quiet writes no progress at all, and the same plan", async () => {
    const config = await twoZones();
    const r = await runBuiltCli(["plan", "-c", config, "--rate-limit", RATE, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/Plan: 4 to create, 2 to update, 0 to replace, 0 to delete\.\n/);
  });

  it("an audit of a generated inventory writes heartbeats counting the items read per kind", async () => {
    await emu.admin("POST", "/inventory", {
      zone_id: ZONE.com,
      scripts: 250,
      connections: 20,
      cookies: 10,
      malicious_ratio: 0.02,
      seed: 3,
    });
    const r = await runBuiltCli([
      "audit",
      "--zone",
      ZONE.com,
      "--status",
      "active,infrequent,inactive",
      "--format",
      "json",
      "--rate-limit",
      RATE,
    ]);
    expect([0, 2], r.stderr).toContain(r.code);
    const beats = r.stderr.split("\n").filter((l) => l.startsWith("audit: "));
    expect(beats.length, r.stderr).toBeGreaterThanOrEqual(1);
    for (const b of beats) {
      expect(b).toMatch(
        /^audit: [01]\/1 zones done, \d+ scripts(, \d+ connections)?(, \d+ cookies)? read, (\d+ requests, rate limit \d\/3 left|waiting [\d.]+ s for the rate limit \(.*\))$/,
      );
    }
    expect(Number(/(\d+) scripts/.exec(beats.at(-1)!)![1])).toBeGreaterThan(0);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  });
});

/** The built CLI (`npm run build` first) in a child process with pipes for stdout and stderr, against the emulator. */
const runBuiltCli = (argv: string[]) =>
  runBuilt([...argv, "--api-url", emu.url], { env: { ZONEFORM_HEARTBEAT: "0.1" }, deadlineMs: 25_000 });

/** One zone whose apply is `changes` changes: its Page Shield settings and `changes - 1` policies, none live yet. */
async function manyChanges(changes: number): Promise<string> {
  const policies = Array.from(
    { length: changes - 1 },
    (_, i) => `        - description: Policy ${i}
          action: log
          expression: http.host eq "p${i}.example.com"
          value: script-src 'none'
`,
  );
  return writeConfig(`version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
      policies:
${policies.join("")}`);
}

interface Timed {
  at: number;
  line: string;
}

/**
 * `apply --auto-approve` by the built CLI with a heartbeat every 0.1 s, each stderr line stamped with the
 * child's own clock as it is written (a preload wraps process.stderr.write): the test runner's load
 * cannot skew the times.
 */
async function timedApply(config: string, extra: string[] = []): Promise<{ code: number | null; lines: Timed[] }> {
  const preload = join(await tempDir(), "stamp.mjs");
  await writeFile(
    preload,
    "const write = process.stderr.write.bind(process.stderr);\n" +
      "process.stderr.write = (chunk, ...rest) =>\n" +
      "  write(String(chunk).replace(/^(?=.)/gm, `${Date.now()} `), ...rest);\n",
  );
  const args = [
    "--import",
    preload,
    BUILT_CLI,
    "apply",
    "-c",
    config,
    "--auto-approve",
    "--api-url",
    emu.url,
    ...extra,
  ];
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      CLOUDFLARE_API_TOKEN: TOKEN,
      ZONEFORM_HEARTBEAT: "0.1",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 40_000);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  const lines = stderr
    .split("\n")
    .map((l) => /^(\d+) (.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ at: Number(m[1]), line: m[2]! }));
  return { code, lines };
}

/** `about 4.2 s left` or `about 2m left`, in ms. */
function etaOf(line: string): number | undefined {
  const m = /, about (?:([\d.]+) s|(\d+)m) left/.exec(line);
  if (!m) return undefined;
  return m[1] !== undefined ? Number(m[1]) * 1000 : Number(m[2]) * 60_000;
}

/**
 * Every ETA of the apply's progress lines, against the time from that line to the last change made: none
 * before 3 changes are made and 2 s have gone; from a fifth of the changes on, within 2x, give or take
 * `slackMs` (a call and a heartbeat: the ETA cannot know how far along the calls in flight are).
 */
function expectHonestEtas(lines: Timed[], changes: number, slackMs: number): void {
  const made = lines.filter((l) => l.line.endsWith(": done"));
  expect(made, "one line per change made").toHaveLength(changes);
  const endAt = made.at(-1)!.at;
  const beats = lines.filter((l) => l.line.startsWith("apply: "));
  // The first heartbeat is written 0.1 s after the phase began.
  const began = beats[0]!.at - 100;
  const shown = beats
    .map((b) => ({ ...b, done: Number(/^apply: (\d+)\//.exec(b.line)![1]), eta: etaOf(b.line) }))
    .filter((b) => b.eta !== undefined);
  const report = shown.map((b) => `${b.done} made at +${b.at - began} ms: ${b.eta} ms shown, ${endAt - b.at} ms true`);
  expect(shown.length, report.join("\n")).toBeGreaterThanOrEqual(5);
  for (const b of shown) {
    expect(b.done, report.join("\n")).toBeGreaterThanOrEqual(3);
    expect(b.at - began, report.join("\n")).toBeGreaterThanOrEqual(1900);
  }
  const judged = shown.filter((b) => b.done >= changes / 5);
  expect(judged.length).toBeGreaterThanOrEqual(5);
  for (const b of judged) {
    const truth = endAt - b.at;
    const why = `${b.done}/${changes} made, ${b.eta} ms shown, ${truth} ms left\n${report.join("\n")}`;
    expect(b.eta!, why).toBeLessThanOrEqual(2 * truth + slackMs);
    expect(b.eta!, why).toBeGreaterThanOrEqual(truth / 2 - slackMs);
  }
}

describe("an honest ETA (issue 47)", () => {
  it("240 changes at 200 ms a write: no ETA before the rate is measured, then within 2x", async () => {
    const config = await manyChanges(240);
    await slowWrites(emu, 200);
    const r = await timedApply(config);
    expect(r.code, r.lines.map((l) => l.line).join("\n")).toBe(0);
    expectHonestEtas(r.lines, 240, 300);
  });

  it("a slow first round of writes (cold connections) does not hold the ETA high afterwards", async () => {
    const config = await manyChanges(120);
    // The first 8 writes (as many as are sent at once) take 2 s, every later one 200 ms.
    await emu.fault({ method: "POST", delay_ms: 2000, count: 8 });
    await slowWrites(emu, 200);
    const r = await timedApply(config);
    expect(r.code, r.lines.map((l) => l.line).join("\n")).toBe(0);
    expectHonestEtas(r.lines, 120, 300);
  });

  it("a rate-limited apply: the waits for the rate limit are in the ETA, shown while waiting too", async () => {
    const config = await manyChanges(120);
    await slowWrites(emu, 200);
    const r = await timedApply(config, ["--rate-limit", "40/2s"]);
    expect(r.code, r.lines.map((l) => l.line).join("\n")).toBe(0);
    expectHonestEtas(r.lines, 120, 300);
    expect(
      r.lines.some((l) => /^apply: .*, about [\d.]+ s left, waiting [\d.]+ s for the rate limit/.test(l.line)),
    ).toBe(true);
  });
});
