// A file's `defaults:` end to end against the emulator: a file with defaults plans, applies and plans
// clean with exactly the writes (paths and bodies) of the same file written out in full; validate
// points a problem at the defaults line, --show-merged prints the zones written out; export --defaults
// of several zones writes what they share into defaults, plans clean, and merges back to the export
// without --defaults.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import {
  ACCOUNT,
  type LoggedRequest,
  TestEmulator,
  ZONE,
  runCli,
  tempDir,
  writeConfig,
  zoneId,
} from "../helpers/cli.js";

const emu = TestEmulator.perFile();

/** Two enterprise zones added to the seed (Logpush and every section need one). */
const SHOPS = ["shop-a.example", "shop-b.example"] as const;
const A = zoneId(SHOPS[0]);
const B = zoneId(SHOPS[1]);
const ENV = { CDN: "https://cdn.example.net", DD_KEY: "dd-test-key-not-hex-0123" };

async function addShops(): Promise<void> {
  for (const name of SHOPS) await emu.admin("POST", "/zones", { name, plan: "enterprise" });
}

const DATADOG = "datadog://http-intake.logs.datadoghq.eu/api/v2/logs?header_DD-API-KEY=${env:DD_KEY}&service=web";

const WITH_DEFAULTS = `version: 1
account_id: ${ACCOUNT}
defaults:
  page_shield:
    enabled: true
    policies:
      - description: Report everything ($\${kept})
        action: log
        expression: http.host ne "internal.example"
        value: script-src 'self' \${env:CDN}
  waf:
    owasp: { enabled: true, paranoia_level: 2, score_threshold: medium, action: managed_challenge }
    cloudflare_managed: { enabled: true }
  logs:
    custom_fields: { request_headers: [x-request-id] }
    logpush_jobs:
      - name: to-datadog
        dataset: http_requests
        destination_conf: "${DATADOG}"
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    waf:
      owasp: { action: log }
  - zone_id: ${A}
    name: ${SHOPS[0]}
    page_shield:
      policies: []
  - zone_id: ${B}
    name: ${SHOPS[1]}
    waf:
      cloudflare_managed: null
    logs:
      logpush_jobs: null
`;

/** The same configuration with every zone written out in full. */
const WRITTEN_OUT = `version: 1
account_id: ${ACCOUNT}
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - description: Report everything ($\${kept})
          action: log
          expression: http.host ne "internal.example"
          value: script-src 'self' \${env:CDN}
    waf:
      owasp: { enabled: true, paranoia_level: 2, score_threshold: medium, action: log }
      cloudflare_managed: { enabled: true }
    logs:
      custom_fields: { request_headers: [x-request-id] }
      logpush_jobs:
        - name: to-datadog
          dataset: http_requests
          destination_conf: "${DATADOG}"
  - zone_id: ${A}
    name: ${SHOPS[0]}
    page_shield:
      enabled: true
      policies: []
    waf:
      owasp: { enabled: true, paranoia_level: 2, score_threshold: medium, action: managed_challenge }
      cloudflare_managed: { enabled: true }
    logs:
      custom_fields: { request_headers: [x-request-id] }
      logpush_jobs:
        - name: to-datadog
          dataset: http_requests
          destination_conf: "${DATADOG}"
  - zone_id: ${B}
    name: ${SHOPS[1]}
    page_shield:
      enabled: true
      policies:
        - description: Report everything ($\${kept})
          action: log
          expression: http.host ne "internal.example"
          value: script-src 'self' \${env:CDN}
    waf:
      owasp: { enabled: true, paranoia_level: 2, score_threshold: medium, action: managed_challenge }
    logs:
      custom_fields: { request_headers: [x-request-id] }
`;

/** plan → apply → plan with no changes; the writes the apply sent, per zone in their order, ids made positional. */
async function converge(config: string): Promise<Record<string, string[]>> {
  const plan1 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env: ENV });
  expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
  await emu.clearRequests();
  const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve"], { env: ENV });
  expect(apply.code, apply.stdout + apply.stderr).toBe(0);
  const writes = (await emu.requests()).filter((r) => r.method !== "GET");
  const plan2 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env: ENV });
  expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
  expect(plan2.stdout).toContain("No changes.");
  return byZone(writes);
}

/**
 * The writes of each zone in the order sent (zones run at once, so only a zone's own order is fixed),
 * each `METHOD path body`, with the ids the emulator drew at random (new rulesets, rules) named by
 * their first appearance in that zone: two runs on a reset emulator compare equal.
 */
function byZone(writes: LoggedRequest[]): Record<string, string[]> {
  const known = new Set([ZONE.com, A, B, ACCOUNT]);
  const out: Record<string, string[]> = {};
  for (const zone of [ZONE.com, A, B]) {
    const ids = new Map<string, string>();
    out[zone] = writes
      .filter((w) => w.path.includes(`/zones/${zone}/`))
      .map((w) =>
        `${w.method} ${w.path} ${JSON.stringify(w.body)}`.replace(/\b[0-9a-f]{32}\b/g, (id) => {
          if (known.has(id)) return id;
          if (!ids.has(id)) ids.set(id, `<id${ids.size + 1}>`);
          return ids.get(id)!;
        }),
      );
  }
  return out;
}

describe("defaults end to end", () => {
  it("the written-out file is the same configuration (the test's own check)", async () => {
    const a = await runCli(undefined, ["validate", "-c", await writeConfig(WRITTEN_OUT), "--require-env"], {
      env: ENV,
    });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain("✓ 3 zones");
  });

  it("plans, applies and plans clean with exactly the writes of the file written out in full", async () => {
    await addShops();
    const config = await writeConfig(WITH_DEFAULTS);
    const withDefaults = await converge(config);
    // drift reads the file as plan does: none, then a default changed by hand is drift in every zone using it.
    expect((await runCli(emu, ["drift", "-c", config], { env: ENV })).code).toBe(0);
    await emu.api("PUT", `zones/${A}/page_shield`, { enabled: false });
    const drift = await runCli(emu, ["drift", "-c", config], { env: ENV });
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    expect(drift.stdout).toContain(SHOPS[0]);
    expect(drift.stdout).not.toContain(SHOPS[1]);
    for (const zone of [ZONE.com, A, B]) expect(withDefaults[zone]!.length, zone).toBeGreaterThan(0);
    // What defaults gave: the Datadog job with its key in every zone that did not take it out.
    const jobs = Object.values(withDefaults)
      .flat()
      .filter((w) => w.startsWith("POST") && w.includes("/logpush/jobs"));
    expect(jobs).toHaveLength(2);
    for (const job of jobs) expect(job).toContain(`header_DD-API-KEY=${ENV.DD_KEY}`);
    // The escape stays an escape: the description is the text `${kept}`, nothing read for it.
    const policies = Object.values(withDefaults)
      .flat()
      .filter((w) => w.startsWith("POST") && w.includes("/page_shield/policies"));
    expect(policies).toHaveLength(2);
    for (const p of policies) expect(p).toContain('"description":"Report everything (${kept})"');

    await emu.reset();
    await addShops();
    const writtenOut = await converge(await writeConfig(WRITTEN_OUT));
    expect(withDefaults).toEqual(writtenOut);
  });

  it("validate --show-merged prints the zones as the written-out file has them; --zone picks", async () => {
    const config = await writeConfig(WITH_DEFAULTS);
    const r = await runCli(undefined, ["validate", "-c", config, "--show-merged"], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("✓ 3 zones in");
    const merged = parse(r.stdout);
    expect(merged).toEqual(parse(WRITTEN_OUT));
    // References and escapes as written, never a value.
    expect(r.stdout).toContain("${env:DD_KEY}");
    expect(r.stdout).toContain("$${kept}");
    expect(r.stdout).not.toContain(ENV.DD_KEY);
    // What it prints loads as the same configuration.
    const again = await runCli(undefined, ["validate", "-c", await writeConfig(r.stdout), "--show-merged"], {
      env: ENV,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(parse(again.stdout)).toEqual(merged);

    const one = await runCli(undefined, ["validate", "-c", config, "--show-merged", "--zone", SHOPS[1]], { env: ENV });
    expect(one.code, one.stderr).toBe(0);
    expect(parse(one.stdout).zones).toEqual([parse(WRITTEN_OUT).zones[2]]);
    const verbose = await runCli(undefined, ["validate", "-c", config, "--verbose"], { env: ENV });
    const verboseFull = await runCli(undefined, ["validate", "-c", await writeConfig(WRITTEN_OUT), "--verbose"], {
      env: ENV,
    });
    expect(verbose.stdout.split("\n").slice(1)).toEqual(verboseFull.stdout.split("\n").slice(1));
    const unknown = await runCli(undefined, ["validate", "-c", config, "--show-merged", "--zone", "nope.example"]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain("--zone nope.example: no such zone in the configuration");
  });

  it("points a problem of a default at its line in defaults, and plan sends nothing", async () => {
    const bad = WITH_DEFAULTS.replace("paranoia_level: 2", "paranoia_level: 9");
    const config = await writeConfig(bad);
    const lines = bad.split("\n");
    const line = lines.findIndex((l) => l.includes("paranoia_level: 9")) + 1;
    const column = lines[line - 1]!.indexOf("paranoia_level: 9") + "paranoia_level: ".length + 1;
    const v = await runCli(undefined, ["validate", "-c", config], { env: ENV });
    expect(v.code).toBe(3);
    expect(v.stderr).toContain(`${config}:${line}:${column}  /defaults/waf/owasp/paranoia_level  must be ≤ 4 (got 9)`);
    // An unset variable of a default: at its line, once, for plan an error; nothing is read or written.
    await addShops();
    await emu.clearRequests();
    const p = await runCli(emu, ["plan", "-c", await writeConfig(WITH_DEFAULTS)], { env: { CDN: ENV.CDN } });
    expect(p.code).toBe(3);
    const ddLine = WITH_DEFAULTS.split("\n").findIndex((l) => l.includes("destination_conf")) + 1;
    expect(p.stderr).toMatch(
      new RegExp(`:${ddLine}:\\d+  /defaults/logs/logpush_jobs/0/destination_conf  environment variable DD_KEY`),
    );
    expect(p.stderr.match(/DD_KEY is not set/g)).toHaveLength(1);
    expect(await emu.calls()).toEqual([]);
  });

  it("export --defaults writes what the zones share into defaults; it plans clean and merges back", async () => {
    await addShops();
    await converge(await writeConfig(WITH_DEFAULTS));
    const dir = await tempDir();
    const shared = join(dir, "shared.yaml");
    const plain = join(dir, "plain.yaml");
    const zones = ["--zone", "example.com", "--zone", SHOPS[0], "--zone", SHOPS[1]];
    await emu.clearRequests();
    const e1 = await runCli(emu, ["export", ...zones, "--account-id", ACCOUNT, "--defaults", "--out", shared]);
    expect(e1.code, e1.stderr).toBe(0);
    const e2 = await runCli(emu, ["export", ...zones, "--account-id", ACCOUNT, "--out", plain]);
    expect(e2.code, e2.stderr).toBe(0);
    expect((await emu.calls({ writesOnly: true })).filter((c) => !c.includes("/validate"))).toEqual([]);

    const doc = parse(await readFile(shared, "utf8"));
    const exported = parse(await readFile(plain, "utf8"));
    expect(doc.defaults).toBeDefined();
    // What every zone has alike (the custom fields and OWASP but its action), and nothing of one zone.
    expect(doc.defaults.logs.custom_fields).toEqual({
      request_headers: ["x-request-id"],
      response_headers: [],
      cookies: [],
    });
    expect(doc.defaults.waf.owasp).toEqual({ enabled: true, paranoia_level: 2, score_threshold: "medium" });
    expect(doc.defaults).not.toHaveProperty("zone_id");
    expect(doc.defaults).not.toHaveProperty("name");
    expect(doc.defaults).not.toHaveProperty("custom_hostnames");
    expect(doc.zones.map((z: { zone_id: string }) => z.zone_id)).toEqual([ZONE.com, A, B]);
    expect(await readFile(shared, "utf8")).toContain("# defaults: what every zone shares");

    const env = Object.fromEntries(
      [...e1.stderr.matchAll(/^ {2}(ZONEFORM_\w+)/gm)].map((m) => [m[1]!, ENV.DD_KEY] as const),
    );
    expect(Object.keys(env).length).toBeGreaterThan(0);
    const plan = await runCli(emu, ["plan", "-c", shared, "--detailed-exitcode"], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain("No changes.");

    const merged = await runCli(undefined, ["validate", "-c", shared, "--show-merged"], { env });
    expect(merged.code, merged.stderr).toBe(0);
    expect(parse(merged.stdout).zones).toEqual(exported.zones);
  });

  it("export --defaults of one zone writes no defaults and says so", async () => {
    const r = await runCli(emu, ["export", "--zone", "example.com", "--defaults", "--sections", "waf"]);
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r.stdout).defaults).toBeUndefined();
    expect(r.stderr).toContain("Warning: --defaults: one zone shares nothing with another; the file has no defaults.");
  });
});
