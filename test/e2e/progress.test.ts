import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, writeConfig, zoneId } from "../helpers/cli.js";
import { runBuilt } from "../attacks/helpers.js";

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
