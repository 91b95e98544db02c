// The OWASP Core Ruleset and the Cloudflare Managed Ruleset end to end against the emulator: deploy,
// tune by intent, disable, adopt, and never disturb rules zoneform does not own. Every scenario is
// plan → apply → plan with no changes, asserting the exact calls from the emulator's request log.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planValidator } from "../../src/plan/plan-file.js";
import { ACCOUNT, TestEmulator, ZONE, runCli, tempDir, writeConfig, writesCheckedFirst } from "../helpers/cli.js";

const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const CFM = "efb7b8c949ac4650a09736fc376e9aee";
const LAST = "6179ae15870a4bb7b2d480d4843b323c";
const PHASE = "http_request_firewall_managed";
const Z = ZONE.com;
const EP_PATH = `zones/${Z}/rulesets/phases/${PHASE}/entrypoint`;

const emu = TestEmulator.perFile();

interface Rule {
  id: string;
  action: string;
  ref?: string;
  enabled?: boolean;
  description?: string;
  action_parameters?: { id?: string; overrides?: { categories?: unknown[]; rules?: unknown[]; action?: string } };
}
interface Ruleset {
  id: string;
  version: string;
  rules: Rule[];
}

function wafConfig(waf: string, opts: { account?: boolean; zones?: Array<[string, string]> } = {}): string {
  const zones = opts.zones ?? [[Z, "example.com"]];
  const indented = waf
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => `      ${l}`)
    .join("\n");
  return (
    `version: 1\n${opts.account ? `account_id: ${ACCOUNT}\n` : ""}zones:\n` +
    zones.map(([id, name]) => `  - zone_id: ${id}\n    name: ${name}\n    waf:\n${indented}\n`).join("")
  );
}
const owasp = (p: number, t: string | number, action = "block", enabled = true) =>
  `owasp: { enabled: ${enabled}, paranoia_level: ${p}, score_threshold: ${t}, action: ${action} }`;

/** plan (changes) → apply → plan (no changes); returns the plan text and the apply's writes with bodies. */
async function converge(yaml: string, extra: string[] = []) {
  const config = await writeConfig(yaml);
  const plan1 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode", ...extra]);
  expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
  await emu.clearRequests();
  const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve", ...extra]);
  expect(apply.code, apply.stdout + apply.stderr).toBe(0);
  const log = await emu.requests();
  const writes = writesCheckedFirst(log).map((r) => ({
    call: `${r.method} ${r.path.replace(/^\/client\/v4\//, "")}`,
    body: r.body,
  }));
  await emu.clearRequests();
  const plan2 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode", ...extra]);
  expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
  expect(plan2.stdout).toContain("No changes.");
  return { config, plan: plan1.stdout, writes, replanCalls: await emu.calls() };
}

const entrypoint = () => emu.api<Ruleset>("GET", EP_PATH);

describe("OWASP core ruleset", () => {
  it("deploys OWASP and Cloudflare Managed from nothing in one POST creating the entry point", async () => {
    const { plan, writes, replanCalls } = await converge(
      wafConfig(`${owasp(2, "medium", "managed_challenge")}\ncloudflare_managed: { enabled: true }`),
    );
    expect(plan).toContain('+ waf_managed_rules "owasp"');
    expect(plan).toContain("# deploy OWASP: paranoia 2, threshold 40 (medium), action managed_challenge");
    expect(plan).toContain("# deploy Cloudflare Managed Ruleset");
    // The rule JSON is only for --verbose.
    expect(plan).not.toContain('"action_parameters"');
    expect(plan).toContain("Plan: 2 to create, 0 to update, 0 to replace, 0 to delete.");
    expect(writes).toEqual([
      {
        call: `POST zones/${Z}/rulesets`,
        body: {
          name: "Zone-level phase entry point",
          kind: "zone",
          description: "zoneform: managed WAF rulesets",
          phase: PHASE,
          rules: [
            {
              action: "execute",
              expression: "true",
              description: "zoneform: Cloudflare Managed Ruleset",
              enabled: true,
              ref: "zoneform-cloudflare-managed",
              action_parameters: { id: CFM },
            },
            {
              action: "execute",
              expression: "true",
              description: "zoneform: OWASP Core Ruleset",
              enabled: true,
              ref: "zoneform-owasp",
              action_parameters: {
                id: OWASP,
                overrides: {
                  categories: [
                    { category: "paranoia-level-3", enabled: false },
                    { category: "paranoia-level-4", enabled: false },
                  ],
                  rules: [{ id: LAST, score_threshold: 40, action: "managed_challenge" }],
                },
              },
            },
          ],
        },
      },
    ]);
    // A plan reads the entry point and OWASP by its well-known id (no ruleset list), once each.
    expect([...replanCalls].sort()).toEqual([`GET ${EP_PATH}`, `GET zones/${Z}/rulesets/${OWASP}`].sort());
    const ep = await entrypoint();
    expect(ep.rules.map((r) => r.ref)).toEqual(["zoneform-cloudflare-managed", "zoneform-owasp"]);
  });

  it("shows the rule JSON with --verbose, and the JSON plan of a shared create validates", async () => {
    const config = await writeConfig(wafConfig(`${owasp(1, "low")}\ncloudflare_managed: { enabled: true }`));
    const json = await runCli(emu, ["plan", "-c", config, "--format", "json"]);
    expect((await planValidator())(JSON.parse(json.stdout))).toBe(true);
    const verbose = await runCli(emu, ["plan", "-c", config, "--verbose"]);
    expect(verbose.stdout).toContain(`"id": "${LAST}"`);
    expect(verbose.stdout).toContain('"score_threshold": 60');
  });

  it("changes paranoia, then threshold, then action, each with one PATCH of the rule, in words", async () => {
    await converge(wafConfig(owasp(1, "low")));
    const ruleId = (await entrypoint()).rules[0]!.id;
    const patch = `PATCH zones/${Z}/rulesets/${(await entrypoint()).id}/rules/${ruleId}`;

    const paranoia = await converge(wafConfig(owasp(3, "low")));
    expect(paranoia.plan).toContain(`~ waf_managed_rules "owasp" (id ${ruleId})`);
    expect(paranoia.plan).toContain("# paranoia 1 → 3");
    expect(paranoia.plan).toContain("~ paranoia_level: 1 → 3");
    expect(paranoia.plan).not.toContain("threshold");
    expect(paranoia.writes.map((w) => w.call)).toEqual([patch]);
    expect(paranoia.writes[0]!.body).toMatchObject({
      action: "execute",
      ref: "zoneform-owasp",
      enabled: true,
      action_parameters: {
        id: OWASP,
        overrides: {
          categories: [{ category: "paranoia-level-4", enabled: false }],
          rules: [{ id: LAST, score_threshold: 60, action: "block" }],
        },
      },
    });

    const threshold = await converge(wafConfig(owasp(3, "high")));
    expect(threshold.plan).toContain("# threshold 60 → 25 (high)");
    expect(threshold.writes.map((w) => w.call)).toEqual([patch]);
    expect(threshold.writes[0]!.body).toMatchObject({
      action_parameters: { overrides: { rules: [{ id: LAST, score_threshold: 25, action: "block" }] } },
    });

    const action = await converge(wafConfig(owasp(3, 33, "managed_challenge")));
    expect(action.plan).toContain("# threshold 25 → 33, action block → managed_challenge");
    expect(action.writes.map((w) => w.call)).toEqual([patch]);

    const all = await converge(wafConfig(owasp(4, "medium", "log")));
    expect(all.plan).toContain("# paranoia 3 → 4, threshold 33 → 40 (medium), action managed_challenge → log");
    const overrides = (all.writes[0]!.body as Rule).action_parameters!.overrides!;
    expect(overrides.categories).toBeUndefined();
    expect(overrides.rules).toEqual([{ id: LAST, score_threshold: 40, action: "log" }]);
    // Still one rule, the same one: tuned in place, never duplicated.
    expect((await entrypoint()).rules.map((r) => r.id)).toEqual([ruleId]);
  });

  it("disables by patching enabled: false, and enabling again restores the tuning", async () => {
    await converge(wafConfig(owasp(2, "high", "managed_challenge")));
    const before = (await entrypoint()).rules[0]!;
    const off = await converge(wafConfig("owasp: { enabled: false }"));
    expect(off.plan).toContain("# disable OWASP (tuning kept)");
    expect(off.writes).toHaveLength(1);
    expect(off.writes[0]!.body).toEqual({ ...pickWritable(before), enabled: false });
    const on = await converge(wafConfig(owasp(2, "high", "managed_challenge")));
    expect(on.plan).toContain("# enable OWASP");
    expect(on.plan).not.toContain("paranoia");
    expect((await entrypoint()).rules[0]!.action_parameters).toEqual(before.action_parameters);
  });

  it("plans nothing to disable when OWASP was never deployed", async () => {
    const config = await writeConfig(wafConfig("owasp: { enabled: false }"));
    const plan = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
    expect(plan.code, plan.stderr).toBe(0);
  });

  it("keeps foreign rules of the entry point byte for byte and in place, before and after every change", async () => {
    // A skip rule and the Cloudflare Managed Ruleset deployed from the dashboard (the file does not declare it).
    await emu.api("PUT", EP_PATH, {
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
        {
          action: "execute",
          expression: "true",
          description: "from the dashboard",
          action_parameters: { id: CFM, version: "latest", overrides: { action: "log" } },
        },
      ],
    });
    const seeded = await entrypoint();
    const foreign = JSON.stringify(seeded.rules);
    await emu.clearRequests();

    const deploy = await converge(wafConfig(owasp(2, "medium")));
    expect(deploy.writes.map((w) => w.call)).toEqual([`POST zones/${Z}/rulesets/${seeded.id}/rules`]);
    let ep = await entrypoint();
    expect(JSON.stringify(ep.rules.slice(0, 2))).toBe(foreign);
    expect(ep.rules[2]!.ref).toBe("zoneform-owasp");

    const tune = await converge(wafConfig(owasp(1, "low", "js_challenge")));
    expect(tune.writes.map((w) => w.call)).toEqual([`PATCH zones/${Z}/rulesets/${seeded.id}/rules/${ep.rules[2]!.id}`]);
    const off = await converge(wafConfig("owasp: { enabled: false }"));
    expect(off.writes).toHaveLength(1);
    ep = await entrypoint();
    expect(JSON.stringify(ep.rules.slice(0, 2))).toBe(foreign);
    expect(ep.rules).toHaveLength(3);
  });

  it("adopts an OWASP rule made in the dashboard and keeps its other overrides", async () => {
    // A rule turned off for a false positive: any rule of the OWASP ruleset will do, take the first.
    const owaspRules = await emu.api<Ruleset>("GET", `zones/${Z}/rulesets/${OWASP}`);
    const falsePositive = { id: owaspRules.rules[0]!.id, enabled: false };
    await emu.api("PUT", EP_PATH, {
      name: "default",
      rules: [
        {
          action: "execute",
          expression: "true",
          description: "dashboard OWASP",
          ref: "dash",
          action_parameters: {
            id: OWASP,
            overrides: { rules: [falsePositive], categories: [{ category: "language-php", enabled: false }] },
          },
        },
      ],
    });
    const live = (await entrypoint()).rules[0]!;
    await emu.clearRequests();
    const { plan, writes } = await converge(wafConfig(owasp(2, "medium")));
    expect(plan).toContain(`~ waf_managed_rules "owasp" (id ${live.id})`);
    expect(plan).toContain("# paranoia 4 → 2");
    expect(writes.map((w) => w.call)).toEqual([
      `PATCH zones/${Z}/rulesets/${(await entrypoint()).id}/rules/${live.id}`,
    ]);
    expect(writes[0]!.body).toEqual({
      action: "execute",
      expression: "true",
      description: "dashboard OWASP",
      ref: "dash",
      enabled: true,
      action_parameters: {
        id: OWASP,
        version: "latest",
        overrides: {
          rules: [falsePositive, { id: LAST, score_threshold: 40, action: "block" }],
          categories: [
            { category: "language-php", enabled: false },
            { category: "paranoia-level-3", enabled: false },
            { category: "paranoia-level-4", enabled: false },
          ],
        },
      },
    });
    expect((await entrypoint()).rules).toHaveLength(1);
  });

  it("sets and clears the Cloudflare Managed ruleset-wide action, and disables it", async () => {
    await converge(wafConfig("cloudflare_managed: { enabled: true, action: log }"));
    // The API reads back version "latest" on an execute rule created without one.
    expect((await entrypoint()).rules[0]!.action_parameters).toEqual({
      id: CFM,
      version: "latest",
      overrides: { action: "log" },
    });
    const clear = await converge(wafConfig("cloudflare_managed: { enabled: true }"));
    expect(clear.plan).toContain("# action log → each rule's own");
    expect((await entrypoint()).rules[0]!.action_parameters).toEqual({ id: CFM, version: "latest" });
    const off = await converge(wafConfig("cloudflare_managed: { enabled: false }"));
    expect(off.plan).toContain("# disable Cloudflare Managed Ruleset (rule kept)");
    expect((await entrypoint()).rules[0]!.enabled).toBe(false);
  });

  it("reads the managed ruleset through the account once for all zones when account_id is set", async () => {
    const yaml = wafConfig(owasp(2, "medium"), {
      account: true,
      zones: [
        [ZONE.com, "example.com"],
        [ZONE.net, "example.net"],
      ],
    });
    const { writes, replanCalls } = await converge(yaml);
    expect(writes.map((w) => w.call).sort()).toEqual(
      [`POST zones/${ZONE.com}/rulesets`, `POST zones/${ZONE.net}/rulesets`].sort(),
    );
    expect([...replanCalls].sort()).toEqual(
      [
        `GET accounts/${ACCOUNT}/rulesets/${OWASP}`,
        `GET zones/${ZONE.com}/rulesets/phases/${PHASE}/entrypoint`,
        `GET zones/${ZONE.net}/rulesets/phases/${PHASE}/entrypoint`,
      ].sort(),
    );
  });

  it("refuses a saved plan when a foreign rule of the entry point changed since", async () => {
    await emu.api("PUT", EP_PATH, {
      name: "default",
      rules: [{ action: "skip", expression: "true", ref: "s", action_parameters: { ruleset: "current" } }],
    });
    const dir = await tempDir();
    const config = await writeConfig(wafConfig(owasp(2, "medium")), "zoneform.yaml", dir);
    const out = join(dir, "plan.json");
    expect((await runCli(emu, ["plan", "-c", config, "--out", out])).code).toBe(0);
    const ep = await entrypoint();
    await emu.api("PATCH", `zones/${Z}/rulesets/${ep.id}/rules/${ep.rules[0]!.id}`, {
      action: "skip",
      expression: 'http.host eq "a"',
      ref: "s",
      action_parameters: { ruleset: "current" },
    });
    await emu.clearRequests();
    const stale = await runCli(emu, ["apply", out]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("waf_managed_rules/entrypoint changed");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});

describe("examples/owasp-tuned/zoneform.yaml", () => {
  it("applies on a fresh emulator and then plans no changes", async () => {
    const config = join(import.meta.dirname, "../../examples/owasp-tuned/zoneform.yaml");
    const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(await emu.calls({ writesOnly: true })).toEqual([`POST zones/${Z}/rulesets`, `POST zones/${Z}/rulesets`]);
    const plan = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});

function pickWritable(r: Rule): Record<string, unknown> {
  const { id: _i, version: _v, last_updated: _l, categories: _c, ...rest } = r as Rule & Record<string, unknown>;
  return rest;
}
