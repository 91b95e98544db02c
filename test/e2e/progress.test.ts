// Progress off a terminal (issue 16 item 2), through the built CLI (`npm run build` first) with stderr a
// pipe, as in CI: a rate-limited plan over eight zones writes heartbeat lines and says each time it
// waits for the rate limit, how long and why, while stdout holds the plan alone; --quiet writes none of
// it; an audit of a generated inventory writes heartbeats counting the items read. The heartbeat is set
// to 1 s (ZONEFORM_HEARTBEAT) so that runs of a few seconds show several.
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, writeConfig, zoneId } from "../helpers/cli.js";
import { runBuilt } from "../attacks/helpers.js";

const emu = TestEmulator.perFile();

const EXTRA_ZONES = ["zone-a.test", "zone-b.test", "zone-c.test", "zone-d.test"];
const ZONES = ["example.com", "example.net", "example.org", "example.dev", ...EXTRA_ZONES];

/** Eight zones, three reads each (Page Shield settings and policies, custom fields): about 26 requests. */
async function eightZones(): Promise<string> {
  for (const name of EXTRA_ZONES) await emu.admin("POST", "/zones", { name, plan: "enterprise" });
  await emu.admin("PUT", "/latency", { ms: 50 });
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

const HEARTBEAT = /^plan: \d\/8 zones read, \d+ requests, rate limit \d+\/10 left(, about [\d.]+ s left)?$/;
const WAIT = /^waiting \d\.\d s for the rate limit \(10 requests per 2 s; this run has sent them all\)$/;

describe("progress on stderr when it is not a terminal", () => {
  it("a rate-limited plan writes heartbeats and its waits for the rate limit; stdout is the plan alone", async () => {
    const config = await eightZones();
    const r = await runBuiltCli(["plan", "-c", config, "--rate-limit", "10/2s"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split("\n").filter((l) => l !== "");
    // Every line is a heartbeat or a wait: nothing else, no carriage return or escape sequence.
    for (const l of lines) expect(l).toMatch(new RegExp(`${HEARTBEAT.source}|${WAIT.source}`));
    expect(lines.filter((l) => HEARTBEAT.test(l)).length).toBeGreaterThanOrEqual(2);
    // Two waits at least: after the 10th and the 20th request.
    expect(lines.filter((l) => WAIT.test(l)).length).toBeGreaterThanOrEqual(2);
    expect(r.stdout).toMatch(/^# example\.com \(/);
    expect(r.stdout).toMatch(/Plan: 16 to create, 8 to update, 0 to replace, 0 to delete\.\nPlan digest: sha256:[0-9a-f]{64}\n$/);
    expect(r.stdout).not.toMatch(/zones read|waiting|rate limit/);
  });

  it("--quiet writes no progress at all, and the same plan", async () => {
    const config = await eightZones();
    const r = await runBuiltCli(["plan", "-c", config, "--rate-limit", "10/2s", "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/Plan: 16 to create, 8 to update, 0 to replace, 0 to delete\.\n/);
  });

  it("an audit of a generated inventory writes heartbeats counting the items read per kind", async () => {
    await emu.admin("POST", "/inventory", { zone_id: ZONE.com, scripts: 2500, connections: 150, cookies: 60, malicious_ratio: 0.02, seed: 3 });
    await emu.admin("PUT", "/latency", { ms: 20 });
    const r = await runBuiltCli(["audit", "--zone", ZONE.com, "--status", "active,infrequent,inactive", "--format", "json", "--rate-limit", "10/1s"]);
    expect([0, 2], r.stderr).toContain(r.code);
    const beats = r.stderr.split("\n").filter((l) => l.startsWith("audit: "));
    expect(beats.length, r.stderr).toBeGreaterThanOrEqual(1);
    for (const b of beats) {
      expect(b).toMatch(/^audit: [01]\/1 zones done, \d+ scripts(, \d+ connections)?(, \d+ cookies)? read, \d+ requests, rate limit \d+\/10 left$/);
    }
    expect(Number(/(\d+) scripts/.exec(beats.at(-1)!)![1])).toBeGreaterThan(0);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  });
});

/** The built CLI (`npm run build` first) in a child process with pipes for stdout and stderr, against the emulator. */
const runBuiltCli = (argv: string[]) => runBuilt([...argv, "--api-url", emu.url], { env: { ZONEFORM_HEARTBEAT: "1" }, deadlineMs: 25_000 });
