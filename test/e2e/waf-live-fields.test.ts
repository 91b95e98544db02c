// Issue 28, "nothing live is lost by a write", for the WAF managed rules: an OWASP execute rule made
// in the dashboard, with fields zoneform does not model at rule level and in action_parameters and
// overrides, and overrides zoneform does not own, survives a planned change of paranoia level byte
// for byte: plan → apply → plan with no changes, the exact PATCH from the emulator's request log, and
// the entry point read back equal in everything but what the plan changed. Facts relied on
// (the shared spec real-answers.md "Corrections", entry point execute rule): `action_parameters.version:
// "latest"`, and a dashboard-made managed rule may carry rule overrides of its own. Whether the real
// API keeps a rule field it does not know is not recorded: the emulator keeps it (its choice), so a
// client that drops one is caught.
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, writeConfig, writesCheckedFirst } from "../helpers/cli.js";

const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const LAST = "6179ae15870a4bb7b2d480d4843b323c";
const PHASE = "http_request_firewall_managed";
const Z = ZONE.com;
const EP_PATH = `zones/${Z}/rulesets/phases/${PHASE}/entrypoint`;

const emu = TestEmulator.perFile();

type Json = Record<string, any>;
interface Ruleset {
  id: string;
  version: string;
  rules: Json[];
}

const config = (paranoia: number) =>
  writeConfig(
    `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    waf:\n      owasp: { enabled: true, ` +
      `paranoia_level: ${paranoia}, score_threshold: medium, action: block, expression: 'http.host eq ` +
      `"example.com"' }\n`,
  );

describe("WAF managed rules: unknown live fields survive a change of paranoia level", () => {
  it("PATCHes the live rule with only the paranoia categories changed; the rest reads back byte for byte", async () => {
    const owaspRules = await emu.api<Ruleset>("GET", `zones/${Z}/rulesets/${OWASP}`);
    const falsePositive = { id: owaspRules.rules[0]!.id, enabled: false, x_override_note: "false positive, ticket 42" };
    await emu.api("PUT", EP_PATH, {
      name: "default",
      rules: [
        {
          action: "execute",
          expression: 'http.host eq "example.com"',
          description: "dashboard OWASP",
          ref: "dash-owasp",
          enabled: true,
          logging: { enabled: true },
          x_rule_future: { kept: true, list: [3, 1, 2] },
          action_parameters: {
            id: OWASP,
            version: "latest",
            matched_data: { public_key: "iGqBmyIUxuWt1rvxoAharN9FUXneUBxA/Y19PyyrEG0=" },
            x_params_future: ["a", { b: null }],
            overrides: {
              x_overrides_future: 7,
              rules: [falsePositive, { id: LAST, score_threshold: 40, action: "block" }],
              categories: [
                { category: "language-php", enabled: false },
                { category: "paranoia-level-3", enabled: false },
                { category: "paranoia-level-4", enabled: false },
              ],
            },
          },
        },
      ],
    });
    const before = await emu.api<Ruleset>("GET", EP_PATH);
    const live = before.rules[0]!;
    expect(live).toMatchObject({
      x_rule_future: { kept: true, list: [3, 1, 2] },
      action_parameters: { x_params_future: ["a", { b: null }] },
    });

    const file = await config(3);
    const plan1 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
    expect(plan1.stdout).toContain(`~ waf_managed_rules "owasp" (id ${live.id})`);
    expect(plan1.stdout).toContain("# paranoia 2 → 3");
    expect(plan1.stdout).not.toContain("expression");

    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const { id: _id, version: _v, last_updated: _l, categories: _c, ...writable } = live;
    const changedCategories = [
      { category: "language-php", enabled: false },
      { category: "paranoia-level-4", enabled: false },
    ];
    expect(await emu.calls({ writesOnly: true })).toEqual([`PATCH zones/${Z}/rulesets/${before.id}/rules/${live.id}`]);
    const sent = writesCheckedFirst(await emu.requests()).map((r) => r.body);
    expect(sent).toEqual([
      {
        ...writable,
        action_parameters: {
          ...live.action_parameters,
          overrides: { ...live.action_parameters.overrides, categories: changedCategories },
        },
      },
    ]);

    const plan2 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
    expect(plan2.stdout).toContain("No changes.");

    // Everything but what the plan changed (the paranoia-level-3 override; the rule's version and time) is as it was,
    // byte for byte.
    const after = (await emu.api<Ruleset>("GET", EP_PATH)).rules;
    expect(after).toHaveLength(1);
    const strip = ({ version: _a, last_updated: _b, ...r }: Json) => ({
      ...r,
      action_parameters: {
        ...r.action_parameters,
        overrides: { ...r.action_parameters.overrides, categories: undefined },
      },
    });
    expect(JSON.stringify(strip(after[0]!))).toBe(JSON.stringify(strip(live)));
    expect(after[0]!.action_parameters.overrides.categories).toEqual(changedCategories);
    expect(after[0]!.version).not.toBe(live.version);
  });
});
