// A fleet of zones for the fault suites: N fresh emulator zones, each declaring every section (Page
// Shield settings and policies, OWASP and the Cloudflare Managed Ruleset, custom log fields, two
// Logpush jobs, a custom hostname's CA), with a foreign skip rule seeded in each WAF entry point; and
// the checks that a fleet reached the desired state without duplicates or a lost foreign rule.
import { expect } from "vitest";
import { ACCOUNT, type TestEmulator, runCli, writeConfig, zoneId, type CliResult } from "./cli.js";

const WAF_PHASE = "http_request_firewall_managed";
const LOG_AUTH = "fleet-log-secret-7f3a";
const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const CFM = "efb7b8c949ac4650a09736fc376e9aee";

export interface Fleet {
  config: string;
  zones: Array<{ id: string; name: string }>;
  /** The foreign rule of each zone's WAF entry point, as JSON, keyed by zone id. */
  foreign: Map<string, string>;
  env: NodeJS.ProcessEnv;
}

interface Rule {
  id: string;
  action: string;
  ref?: string;
  action_parameters?: { id?: string };
}

const zoneYaml = (id: string, name: string) => `  - zone_id: ${id}
    name: ${name}
    page_shield:
      enabled: true
      policies:
        - description: Checkout allow-list
          action: allow
          expression: http.request.uri.path contains "/checkout"
          value: script-src 'self' https://js.stripe.com
        - description: Report everything else
          action: log
          expression: not http.request.uri.path contains "/checkout"
          value: script-src 'self'
    waf:
      owasp: { enabled: true, paranoia_level: 2, score_threshold: medium, action: managed_challenge }
      cloudflare_managed: { enabled: true }
    logs:
      custom_fields: { request_headers: [user-agent, cf-ray], response_headers: [cache-control], cookies: [__Session] }
      logpush_jobs:
        - name: http-to-https
          dataset: http_requests
          destination_conf: "https://logs.example.com/ingest/${name}?header_Authorization=\${env:FLEET_LOG_AUTH}"
          output_options: { field_names: [RayID, ClientIP, ClientRequestHost], timestamp_format: rfc3339 }
        - name: firewall-to-datadog
          dataset: firewall_events
          destination_conf: "datadog://http-intake.logs.datadoghq.com/api/v2/logs?header_DD-API-KEY=\${env:FLEET_LOG_AUTH}&service=${name}"
          output_options: { field_names: [Action, ClientIP, RayID] }
    custom_hostnames:
      - { hostname: shop.${name}, certificate_authority: google }
`;

/** Creates `count` fresh zones named `<prefix>-<i>.example` with a custom hostname and a foreign rule each. */
export async function createFleet(emu: TestEmulator, count: number, prefix = "fleet"): Promise<Fleet> {
  const zones = Array.from({ length: count }, (_, i) => ({
    name: `${prefix}-${i}.example`,
    id: zoneId(`${prefix}-${i}.example`),
  }));
  for (const z of zones) await emu.admin("POST", "/zones", { name: z.name, plan: "enterprise" });
  // Custom hostnames are never created by the API zoneform uses: put them into the state.
  const state = await emu.admin<{
    zones: Array<{ id: string; name: string; custom_hostnames: Array<Record<string, unknown>> }>;
  }>("GET", "/state");
  const template = state.zones.find((z) => z.custom_hostnames.length > 0)!.custom_hostnames[0]!;
  for (const z of state.zones) {
    if (!zones.some((f) => f.id === z.id)) continue;
    const hostname = `shop.${z.name}`;
    const id = zoneId(hostname);
    const uuid = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
    z.custom_hostnames = [
      {
        ...structuredClone(template),
        id,
        hostname,
        ssl: { ...(structuredClone(template.ssl) as object), id: uuid, certificate_authority: "lets_encrypt" },
      },
    ];
  }
  await emu.admin("PUT", "/state", state);
  const foreign = new Map<string, string>();
  for (const z of zones) {
    const ep = await emu.api<{ rules: unknown[] }>("PUT", `zones/${z.id}/rulesets/phases/${WAF_PHASE}/entrypoint`, {
      name: "default",
      rules: [
        {
          action: "skip",
          expression: "ip.src eq 192.0.2.10",
          description: "office",
          ref: "office-skip",
          action_parameters: { ruleset: "current" },
          logging: { enabled: true },
        },
      ],
    });
    foreign.set(z.id, JSON.stringify(ep.rules[0]));
  }
  const yaml =
    `version: 1\naccount_id: ${ACCOUNT}\nsafety: { max_deletes: 100 ` +
    `}\nzones:\n${zones.map((z) => zoneYaml(z.id, z.name)).join("")}`;
  return { config: await writeConfig(yaml), zones, foreign, env: { FLEET_LOG_AUTH: LOG_AUTH } };
}

/**
 * Holds back every write's answer `ms` (reads go at full speed), so that a run spends its time in
 * its writes, where the fault suites kill or interrupt it; `DELETE /faults` ends it.
 */
export async function slowWrites(emu: TestEmulator, ms: number): Promise<void> {
  for (const method of ["POST", "PUT", "PATCH", "DELETE"]) await emu.fault({ method, delay_ms: ms });
}

/**
 * Waits until every request the emulator has logged was answered (a killed or interrupted client's
 * calls in flight still land on the server), polling, for at most `boundMs`; throws past it.
 */
export async function untilAnswered(emu: TestEmulator, boundMs = 10_000): Promise<void> {
  const until = Date.now() + boundMs;
  while ((await emu.requests()).some((r) => r.status === 0)) {
    if (Date.now() > until) throw new Error(`requests still unanswered after ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs apply until it exits 0, at most `max` times; `between` runs after each failed run. */
export async function applyUntilDone(
  emu: TestEmulator,
  fleet: Fleet,
  extra: string[],
  max: number,
  between?: () => Promise<void>,
): Promise<CliResult[]> {
  const runs: CliResult[] = [];
  for (let i = 0; i < max; i++) {
    const r = await runCli(emu, ["apply", "-c", fleet.config, "--auto-approve", ...extra], { env: fleet.env });
    runs.push(r);
    if (r.code === 0) return runs;
    await between?.();
  }
  return runs;
}

/** No faults left: the plan shows no changes, no duplicates live, every foreign rule byte for byte. */
export async function expectConverged(emu: TestEmulator, fleet: Fleet): Promise<void> {
  await emu.admin("DELETE", "/faults");
  const plan = await runCli(emu, ["plan", "-c", fleet.config, "--detailed-exitcode"], { env: fleet.env });
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  expect(plan.stdout).toContain("No changes.");
  for (const z of fleet.zones) {
    const policies = await emu.api<Array<{ description: string }>>("GET", `zones/${z.id}/page_shield/policies`);
    expect(policies.map((p) => p.description).sort(), z.name).toEqual([
      "Checkout allow-list",
      "Report everything else",
    ]);
    const jobs = await emu.api<Array<{ name: string }>>("GET", `zones/${z.id}/logpush/jobs`);
    expect(jobs.map((j) => j.name).sort(), z.name).toEqual(["firewall-to-datadog", "http-to-https"]);
    const ep = await emu.api<{ rules: Rule[] }>("GET", `zones/${z.id}/rulesets/phases/${WAF_PHASE}/entrypoint`);
    expect(JSON.stringify(ep.rules[0]), `${z.name}: the foreign rule`).toBe(fleet.foreign.get(z.id));
    const executes = ep.rules.filter((r) => r.action === "execute").map((r) => r.action_parameters?.id);
    expect(executes.sort(), `${z.name}: one execute rule per managed ruleset`).toEqual([OWASP, CFM].sort());
    const fields = await emu.api<{ rules: Rule[] }>(
      "GET",
      `zones/${z.id}/rulesets/phases/http_log_custom_fields/entrypoint`,
    );
    expect(
      fields.rules.filter((r) => r.action === "log_custom_field"),
      z.name,
    ).toHaveLength(1);
  }
}
