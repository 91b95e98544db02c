// Custom log fields end to end against the emulator: one log_custom_field rule in the
// http_log_custom_fields entry point, created, changed and removed; plan → apply → plan with no
// changes each time, asserting the exact calls from the emulator's request log.
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, writeConfig, writesCheckedFirst } from "../helpers/cli.js";

const PHASE = "http_log_custom_fields";
const Z = ZONE.com;
const EP_PATH = `zones/${Z}/rulesets/phases/${PHASE}/entrypoint`;

const emu = TestEmulator.perFile();

interface Rule {
  id: string;
  action: string;
  ref?: string;
  description?: string;
  action_parameters?: Record<string, Array<{ name: string }>>;
}
interface Ruleset {
  id: string;
  name: string;
  kind: string;
  description: string;
  rules: Rule[];
}

const fieldsConfig = (fields: string) =>
  `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    logs:\n      custom_fields:\n${fields
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => `        ${l}`)
    .join("\n")}\n`;

async function converge(yaml: string) {
  const config = await writeConfig(yaml);
  const plan1 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
  expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
  await emu.clearRequests();
  const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve"]);
  expect(apply.code, apply.stdout + apply.stderr).toBe(0);
  const writes = writesCheckedFirst(await emu.requests()).map((r) => ({
    call: `${r.method} ${r.path.replace(/^\/client\/v4\//, "")}`,
    body: r.body,
  }));
  await emu.clearRequests();
  const plan2 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
  expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
  expect(plan2.stdout).toContain("No changes.");
  return { plan: plan1.stdout, writes, replanCalls: await emu.calls() };
}

const entrypoint = () => emu.api<Ruleset>("GET", EP_PATH);

describe("custom log fields", () => {
  it("creates the entry point with the rule in one POST, then reads it with one GET", async () => {
    const { plan, writes, replanCalls } = await converge(
      fieldsConfig("request_headers: [user-agent, cf-ray]\nresponse_headers: [cache-control]\ncookies: [__Session]"),
    );
    expect(plan).toContain('+ custom_fields_rule "custom_fields"');
    expect(plan).toContain(
      "# log request headers +user-agent +cf-ray; response headers +cache-control; cookies +__Session",
    );
    expect(writes).toEqual([
      {
        call: `POST zones/${Z}/rulesets`,
        body: {
          name: "Zone-level phase entry point",
          kind: "zone",
          description: "zoneform: custom log fields",
          phase: PHASE,
          rules: [
            {
              action: "log_custom_field",
              expression: "true",
              description: "zoneform: custom log fields",
              enabled: true,
              ref: "zoneform-custom-fields",
              action_parameters: {
                request_fields: [{ name: "user-agent" }, { name: "cf-ray" }],
                response_fields: [{ name: "cache-control" }],
                cookie_fields: [{ name: "__Session" }],
              },
            },
          ],
        },
      },
    ]);
    expect(replanCalls).toEqual([`GET ${EP_PATH}`]);
    const ep = await entrypoint();
    expect(ep).toMatchObject({
      kind: "zone",
      name: "Zone-level phase entry point",
      description: "zoneform: custom log fields",
    });
  });

  it("changes the fields with one PATCH, and a reordered list causes no diff", async () => {
    await converge(fieldsConfig("request_headers: [user-agent]\ncookies: [__Session]"));
    const ep = await entrypoint();
    const { plan, writes } = await converge(fieldsConfig("request_headers: [user-agent, cf-ray]\ncookies: []"));
    expect(plan).toContain("# request headers +cf-ray; cookies -__Session");
    // The live order is kept; new names come after it.
    expect(plan).toContain('~ request_headers: ["user-agent"] → ["user-agent","cf-ray"]');
    expect(writes).toEqual([
      {
        call: `PATCH zones/${Z}/rulesets/${ep.id}/rules/${ep.rules[0]!.id}`,
        body: {
          action: "log_custom_field",
          expression: "true",
          description: "zoneform: custom log fields",
          enabled: true,
          ref: "zoneform-custom-fields",
          action_parameters: { request_fields: [{ name: "user-agent" }, { name: "cf-ray" }] },
        },
      },
    ]);
    const reordered = await writeConfig(fieldsConfig("request_headers: [user-agent, cf-ray]"));
    expect((await runCli(emu, ["plan", "-c", reordered, "--detailed-exitcode"])).code).toBe(0);
  });

  it("removes the rule with one DELETE when the last field goes, keeping the entry point", async () => {
    await converge(fieldsConfig("cookies: [__Session]"));
    const ep = await entrypoint();
    const { plan, writes } = await converge(fieldsConfig("cookies: []"));
    expect(plan).toContain(`- custom_fields_rule "custom_fields" (id ${ep.rules[0]!.id})`);
    expect(plan).toContain("Plan: 0 to create, 0 to update, 0 to replace, 1 to delete.");
    expect(writes.map((w) => w.call)).toEqual([`DELETE zones/${Z}/rulesets/${ep.id}/rules/${ep.rules[0]!.id}`]);
    const after = await entrypoint();
    expect(after.id).toBe(ep.id);
    expect(after.rules).toEqual([]);
    // Adding fields again goes into the same entry point: never a second zone ruleset for the phase.
    const again = await converge(fieldsConfig("cookies: [__Session]"));
    expect(again.writes.map((w) => w.call)).toEqual([`POST zones/${Z}/rulesets/${ep.id}/rules`]);
  });

  it(
    "adopts a rule made in the dashboard instead of adding a second; a further enabled one stops the zone " +
      "(it logs fields the file does not say), a disabled one is left byte for byte",
    async () => {
      const further = {
        action: "log_custom_field",
        expression: 'http.host eq "api.example.com"',
        description: "api team",
        ref: "api",
        action_parameters: { cookie_fields: [{ name: "api_session" }] },
      };
      const seed = (enabled: boolean) =>
        emu.api("PUT", EP_PATH, {
          name: "default",
          rules: [
            {
              action: "log_custom_field",
              expression: "true",
              description: "dashboard",
              action_parameters: { request_fields: [{ name: "user-agent" }] },
            },
            { ...further, enabled },
          ],
        });
      await seed(true);
      const config = fieldsConfig("request_headers: [user-agent, referer]");
      const stopped = await runCli(emu, ["plan", "-c", await writeConfig(config), "--detailed-exitcode"]);
      expect(stopped.code, stopped.stdout + stopped.stderr).toBe(1);
      expect(stopped.stdout + stopped.stderr).toContain("log fields of their own, so the file's could not be met");
      await emu.clearRequests();
      expect((await runCli(emu, ["apply", "-c", await writeConfig(config), "--auto-approve"])).code).toBe(1);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);

      await seed(false);
      const seeded = await entrypoint();
      const foreign = JSON.stringify(seeded.rules[1]);
      await emu.clearRequests();
      const { plan, writes } = await converge(config);
      expect(plan).toContain("2 log_custom_field rules");
      expect(plan).toContain(`~ custom_fields_rule "custom_fields" (id ${seeded.rules[0]!.id})`);
      expect(writes).toEqual([
        {
          call: `PATCH zones/${Z}/rulesets/${seeded.id}/rules/${seeded.rules[0]!.id}`,
          body: {
            action: "log_custom_field",
            expression: "true",
            description: "dashboard",
            enabled: true,
            ref: seeded.rules[0]!.ref,
            action_parameters: { request_fields: [{ name: "user-agent" }, { name: "referer" }] },
          },
        },
      ]);
      const after = await entrypoint();
      expect(after.rules.map((r) => r.id)).toEqual(seeded.rules.map((r) => r.id));
      expect(JSON.stringify(after.rules[1])).toBe(foreign);
    },
  );

  it("plans nothing for empty lists when no rule exists", async () => {
    const config = await writeConfig(fieldsConfig("request_headers: []"));
    const plan = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});
