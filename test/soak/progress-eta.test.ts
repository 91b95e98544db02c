// Issue 47: the apply's ETA is honest over a long run of timed writes (hundreds of changes at 200 ms a
// write, cold connections, a rate limit): soak only, as it runs for seconds of real time by design.
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILT_CLI } from "../attacks/helpers.js";
import { TOKEN, TestEmulator, ZONE, tempDir, writeConfig } from "../helpers/cli.js";
import { slowWrites } from "../helpers/fleet.js";

const emu = TestEmulator.perFile();

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
