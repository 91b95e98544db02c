// `zoneform waf-migration` against the emulator: check, config, status, both migration paths
// (previous → validation → new on Enterprise, previous → new on Pro), every refusal with no write,
// and the written YAML planning with no changes right after `start --mode pending`.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { TestEmulator, TOKEN, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/program.js";

const emu = TestEmulator.perFile();

const ENTRYPOINT = "rulesets/phases/http_request_firewall_managed/entrypoint";

/** A zone still on the previous WAF managed rules. */
async function legacyZone(name: string, plan: "enterprise" | "business" | "pro"): Promise<string> {
  return (await emu.admin<{ id: string }>("POST", "/zones", { name, plan, waf_migration: "previous" })).id;
}

/** Sets a zone's previous-WAF facts the emulator derives check and config from. */
async function setWafMigration(zoneId: string, patch: Record<string, unknown>): Promise<void> {
  const state = await emu.admin<{ zones: Array<{ id: string; waf_migration: Record<string, unknown> }> }>(
    "GET",
    "/state",
  );
  Object.assign(state.zones.find((z) => z.id === zoneId)!.waf_migration, patch);
  await emu.admin("PUT", "/state", state);
}

interface Status {
  migration_state: string;
  old_waf_status: string;
  new_waf_status: string;
}
const status = (zoneId: string) => emu.api<Status>("GET", `zones/${zoneId}/waf_migration/status`);

/** The one switch call made: its query and body. */
async function switchCalls() {
  return (await emu.requests())
    .filter((r) => r.method !== "GET")
    .map((r) => ({
      method: r.method,
      path: r.path.replace(/^\/client\/v4\//, ""),
      query: r.query,
      status: r.status,
      body: r.body,
    }));
}

describe("waf-migration check and status", () => {
  it("says an eligible zone can be migrated (exit 0)", async () => {
    const z = await legacyZone("legacy.example", "pro");
    const r = await runCli(emu, ["waf-migration", "check", "--zone", z]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Zone ${z} is eligible for the WAF migration (migration_state: start).`);
  });

  it("says why a zone is not eligible (exit 1)", async () => {
    const z = await legacyZone("legacy.example", "pro");
    await setWafMigration(z, { compatible: false, reason: "the zone has URI-based WAF overrides" });
    const r = await runCli(emu, ["waf-migration", "check", "--zone", z]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `Zone ${z} is not eligible for the WAF migration: the zone has URI-based WAF overrides.`,
    );
    expect(r.stdout).toMatch(/until those overrides are deleted/);
  });

  it("reports a zone that already uses the new WAF as done, not as an error", async () => {
    const z = await legacyZone("legacy.example", "pro");
    await setWafMigration(z, { mode: "new" });
    const r = await runCli(emu, ["waf-migration", "check", "--zone", z]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/already uses the new WAF managed rules/);
    expect(r.stderr).toBe("");
  });

  it("shows which WAF runs", async () => {
    const z = await legacyZone("legacy.example", "pro");
    const r = await runCli(emu, ["waf-migration", "status", "--zone", z]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("previous WAF managed rules: enabled");
    expect(r.stdout).toContain("new WAF managed rules:      disabled");
    expect(r.stdout).toMatch(/has not been migrated/);
  });
});

describe("waf-migration config", () => {
  it("prints the proposal as a zoneform file with the spec's mapping, and writes it with --write", async () => {
    const z = await legacyZone("legacy.example", "business");
    await setWafMigration(z, { old_sensitivity: "medium", old_action: "simulate" });
    const dir = await tempDir();
    const r = await runCli(emu, ["waf-migration", "config", "--zone", z, "--write", "waf.yaml"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    // Written outside any project that installs zoneform and outside the checkout: no $schema line.
    expect(r.stdout.split("\n")[0]).toMatch(/^# The new WAF managed rules proposed for zone /);
    expect(r.stdout).toMatch(
      /paranoia level 1, score threshold 25 \(high\), action log \(old sensitivity Medium; old action Simulate\)/,
    );
    const written = await readFile(join(dir, "waf.yaml"), "utf8");
    expect(parse(written)).toEqual({
      version: 1,
      zones: [
        {
          zone_id: z,
          name: "legacy.example",
          waf: {
            owasp: { enabled: true, paranoia_level: 1, score_threshold: 25, action: "log" },
            cloudflare_managed: { enabled: true },
          },
        },
      ],
    });
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    const again = await runCli(emu, ["waf-migration", "config", "--zone", z, "--write", "waf.yaml"], { cwd: dir });
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/the file exists; pass --force/);
    expect(
      (await runCli(emu, ["waf-migration", "config", "--zone", z, "--write", "waf.yaml", "--force"], { cwd: dir }))
        .code,
    ).toBe(0);
  });

  it("prints the API's proposal and the mapped section as JSON", async () => {
    const z = await legacyZone("legacy.example", "pro");
    const r = await runCli(emu, ["waf-migration", "config", "--zone", z, "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.config.name).toBe("default");
    expect(out.waf.owasp).toEqual({ enabled: true, paranoia_level: 2, score_threshold: 40, action: "block" });
  });
});

describe("waf-migration start", () => {
  it("takes an Enterprise zone from the previous WAF to validation mode, then to the new WAF", async () => {
    const z = await legacyZone("legacy.example", "enterprise");
    const proposal = await emu.api<{ name: string; rules: unknown[] }>(
      "GET",
      `zones/${z}/waf_migration/config?phase_two=1`,
    );
    await emu.clearRequests();
    const v = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "validation", "--yes"]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/This cannot be undone/);
    expect(v.stdout).toContain("Validation mode started: both WAFs run.");
    expect(await switchCalls()).toEqual([
      {
        method: "PUT",
        path: `zones/${z}/${ENTRYPOINT}`,
        query: { waf_migration: "validation", phase_two: "1" },
        status: 200,
        body: { name: proposal.name, rules: proposal.rules },
      },
    ]);
    expect(await status(z)).toMatchObject({
      migration_state: "validation",
      old_waf_status: "enabled",
      new_waf_status: "enabled",
    });
    expect((await runCli(emu, ["waf-migration", "status", "--zone", z])).stdout).toMatch(
      /Both WAFs run \(validation mode\)/,
    );

    await emu.clearRequests();
    const p = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending", "--yes"]);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/leaving validation mode/);
    expect((await switchCalls()).map((c) => c.query)).toEqual([{ waf_migration: "pending", phase_two: "1" }]);
    expect(await status(z)).toMatchObject({
      migration_state: "done",
      old_waf_status: "disabled",
      new_waf_status: "enabled",
    });

    const after = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending", "--yes"]);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/already uses the new WAF managed rules; nothing to migrate/);
  });

  it("takes a Pro zone from the previous WAF straight to the new WAF", async () => {
    const z = await legacyZone("legacy.example", "pro");
    await emu.clearRequests();
    const r = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending", "--yes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/previous WAF managed rules are disabled as soon as the configuration is saved/);
    expect(r.stdout).toMatch(/no way back/);
    expect((await switchCalls()).map((c) => [c.method, c.path, c.query, c.status])).toEqual([
      ["PUT", `zones/${z}/${ENTRYPOINT}`, { waf_migration: "pending", phase_two: "1" }, 200],
    ]);
    expect(await status(z)).toMatchObject({
      migration_state: "done",
      old_waf_status: "disabled",
      new_waf_status: "enabled",
    });
  });

  it(
    "reports the switch as apply reports a change: a 502 after it was made is exit 4, may have been " +
      "written; a refusal is exit 1",
    async () => {
      const z = await legacyZone("legacy.example", "pro");
      await emu.admin("POST", "/faults", {
        method: "PUT",
        path: "waf_migration|entrypoint",
        status: 502,
        after: true,
        count: 1,
      });
      const maybe = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending", "--yes"]);
      expect(maybe.code, maybe.stderr).toBe(4);
      expect(maybe.stderr).toContain("(1 of them may have been written)");
      // The PUT was made, answered 502, retried (a PUT is safe to re-send) and refused as already done.
      expect(maybe.stderr).toMatch(
        /failed: +[0-9a-f]{32}: ~ waf_migration "pending": PUT .* after 1 retry .* \(this write may have been made/,
      );
      const other = await legacyZone("legacy2.example", "pro");
      await emu.admin("POST", "/faults", {
        method: "PUT",
        path: "waf_migration|entrypoint",
        status: 400,
        code: 10000,
        count: 1,
      });
      const refused = await runCli(emu, ["waf-migration", "start", "--zone", other, "--mode", "pending", "--yes"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("apply failed before any change was made; nothing was written.");
    },
  );

  it("refuses validation mode on a Pro zone, leaving it on the previous WAF", async () => {
    const z = await legacyZone("legacy.example", "pro");
    await emu.clearRequests();
    const r = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "validation", "--yes"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /only available to Enterprise zones; zone legacy.example .* is on the pro plan\. Use --mode pending\. Nothing was changed\./,
    );
    // The zone's plan is read (GET zones/{id}) before anything is written: no switch call is made at all.
    expect(await switchCalls()).toEqual([]);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    expect(await status(z)).toMatchObject({
      migration_state: "start",
      old_waf_status: "enabled",
      new_waf_status: "disabled",
    });
    await expect(emu.api("GET", `zones/${z}/${ENTRYPOINT}`)).rejects.toThrow(/404/);
  });

  it("refuses an ineligible zone before any write", async () => {
    const z = await legacyZone("legacy.example", "enterprise");
    await setWafMigration(z, { compatible: false, reason: "the zone has URI-based WAF overrides" });
    await emu.clearRequests();
    for (const mode of ["validation", "pending"]) {
      const r = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", mode, "--yes"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /is not eligible for the WAF migration: the zone has URI-based WAF overrides\..*Nothing was changed\./s,
      );
    }
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });

  it("refuses without --auto-approve (or --yes) when stdin is not a terminal, before any write", async () => {
    const z = await legacyZone("legacy.example", "pro");
    await emu.clearRequests();
    const r = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/This cannot be undone/);
    expect(r.stderr).toMatch(
      /needs confirmation, but stdin is not a terminal.*--auto-approve \(or --yes\)\. Nothing was changed\./,
    );
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    expect(await status(z)).toMatchObject({ migration_state: "start" });
  });

  it("asks for 'yes' at a terminal: anything else cancels, yes migrates", async () => {
    const z = await legacyZone("legacy.example", "pro");
    await emu.clearRequests();
    const no = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending"], { answers: ["y"] });
    expect(no.code).toBe(1);
    expect(no.stderr).toMatch(/cancelled; nothing was changed/);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    const yes = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending"], { answers: ["yes"] });
    expect(yes.code, yes.stderr).toBe(0);
    expect(await status(z)).toMatchObject({ migration_state: "done" });
  });

  it("rejects a missing or unknown --mode (exit 3)", async () => {
    const z = await legacyZone("legacy.example", "pro");
    expect((await runCli(emu, ["waf-migration", "start", "--zone", z])).code).toBe(3);
    expect((await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "both"])).code).toBe(3);
    expect(await emu.calls()).toEqual([]);
  });
});

describe("the YAML written by config", () => {
  it.each([
    ["pro", "default", "block"],
    ["enterprise", "medium", "simulate"],
    ["business", "low", "challenge"],
  ] as const)(
    "plans with no changes right after start --mode pending (%s, %s, %s)",
    async (plan, sensitivity, action) => {
      const z = await legacyZone("legacy.example", plan);
      await setWafMigration(z, { old_sensitivity: sensitivity, old_action: action });
      const dir = await tempDir();
      const file = join(dir, "waf.yaml");
      expect((await runCli(emu, ["waf-migration", "config", "--zone", z, "--write", file])).code).toBe(0);
      expect((await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending", "--yes"])).code).toBe(0);

      await emu.clearRequests();
      const r = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain("No changes.");
      // The waf section was really read and compared (not skipped as unowned).
      expect(await emu.calls()).toContain(`GET zones/${z}/${ENTRYPOINT}`);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);

      // And it is compared: a different paranoia level is a change.
      const text = await readFile(file, "utf8");
      await writeFile(file, text.replace(/paranoia_level: \d/, "paranoia_level: 3"));
      const changed = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
      expect(changed.code, changed.stdout + changed.stderr).toBe(2);
    },
  );
});

describe("waf-migration start writes only its own rules", () => {
  const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
  const CFM = "efb7b8c949ac4650a09736fc376e9aee";
  const SKIP = {
    action: "skip",
    expression: "(ip.src eq 203.0.113.7)",
    description: "office scanner: made in the dashboard",
    enabled: true,
    logging: { enabled: true },
    action_parameters: { ruleset: "current" },
  };
  const TUNED_OWASP = {
    action: "execute",
    expression: "true",
    description: "OWASP tuned during validation",
    enabled: true,
    action_parameters: {
      id: OWASP,
      version: "latest",
      overrides: {
        categories: [
          { category: "paranoia-level-3", enabled: false },
          { category: "paranoia-level-4", enabled: false },
        ],
        rules: [{ id: "6179ae15870a4bb7b2d480d4843b323c", action: "managed_challenge", score_threshold: 60 }],
      },
    },
  };
  type Rule = Record<string, unknown> & { id: string };
  const entrypoint = (z: string) => emu.api<{ id: string; rules: Rule[] }>("GET", `zones/${z}/${ENTRYPOINT}`);

  it(
    "from validation mode: sends every live rule back by id, unchanged, adds the missing execute rule, and " +
      "says so before asking",
    async () => {
      const z = await legacyZone("legacy.example", "enterprise");
      await setWafMigration(z, { mode: "validation" });
      await emu.api("POST", `zones/${z}/rulesets`, {
        name: "default",
        kind: "zone",
        phase: "http_request_firewall_managed",
        rules: [SKIP, TUNED_OWASP],
      });
      const before = await entrypoint(z);
      const [skip, owasp] = before.rules;
      await emu.clearRequests();

      const r = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending"], { answers: ["yes"] });
      expect(r.code, r.stderr).toBe(0);

      const proposal = await emu
        .api<{ rules: Array<Record<string, unknown>> }>("GET", `zones/${z}/waf_migration/config?phase_two=1`)
        .catch(() => undefined);
      expect(proposal).toBeUndefined(); // the zone is migrated: the proposal is no longer answered
      const cfmProposed = {
        id: "",
        version: "",
        action: "execute",
        expression: "true",
        description: "Execute Cloudflare Managed Ruleset",
        ref: "",
        enabled: true,
        action_parameters: { id: CFM, version: "latest" },
      };
      const strip = (rule: Rule) => {
        const { version: _v, last_updated: _l, ...rest } = rule;
        return rest;
      };
      expect(await switchCalls()).toEqual([
        {
          method: "PUT",
          path: `zones/${z}/${ENTRYPOINT}`,
          query: { waf_migration: "pending", phase_two: "1" },
          status: 200,
          body: { name: "default", rules: [strip(skip!), strip(owasp!), cfmProposed] },
        },
      ]);
      const after = await entrypoint(z);
      // The foreign skip rule and the tuned OWASP rule are byte-identical (version and last_updated too).
      expect(JSON.stringify(after.rules.slice(0, 2))).toBe(JSON.stringify(before.rules));
      expect(after.rules).toHaveLength(3);
      expect(after.rules[2]).toMatchObject({ action: "execute", action_parameters: { id: CFM } });

      // The confirmation listed the write, each rule kept and the one added, before the prompt.
      const shown = r.stdout.slice(0, r.stdout.indexOf("Migrated:"));
      expect(shown).toContain(`PUT zones/${z}/${ENTRYPOINT}?waf_migration=pending&phase_two=1`);
      expect(shown).toContain(
        `= keeps: ${skip!.id} skip, "office scanner: made in the dashboard", when "(ip.src eq 203.0.113.7)"`,
      );
      expect(shown).toContain(
        `= keeps: ${owasp!.id} execute, Cloudflare OWASP Core Ruleset (${OWASP}), "OWASP tuned during ` +
          `validation", when "true", with 2 category override(s), 1 rule override(s)`,
      );
      expect(shown).toContain(
        `+ adds:  execute, Cloudflare Managed Ruleset (${CFM}), "Execute Cloudflare Managed Ruleset", when "true"`,
      );
      expect(shown).toMatch(
        new RegExp(
          `not added \\(the entry point already has it as ${owasp!.id}, kept as it is\\): execute, Cloudflare ` +
            `OWASP Core Ruleset`,
        ),
      );
      expect(await status(z)).toMatchObject({ migration_state: "done" });

      // The tuning made during validation is what the zone now runs: a file stating it plans no change.
      const file = await writeConfig(
        `version: 1\nzones:\n  - zone_id: ${z}\n    waf:\n      owasp: { enabled: true, paranoia_level: 2, ` +
          `score_threshold: 60, action: managed_challenge }\n      cloudflare_managed: { enabled: true }\n`,
      );
      await emu.clearRequests();
      const plan = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
    },
  );

  it(
    "from the previous WAF: keeps the foreign skip rule first and adds the proposal's execute " + "rules after it",
    async () => {
      const z = await legacyZone("legacy.example", "pro");
      await emu.api("POST", `zones/${z}/rulesets`, {
        name: "default",
        kind: "zone",
        phase: "http_request_firewall_managed",
        rules: [SKIP],
      });
      const before = await entrypoint(z);
      await emu.clearRequests();
      const r = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending", "--yes"]);
      expect(r.code, r.stderr).toBe(0);
      const calls = await switchCalls();
      expect(calls).toHaveLength(1);
      const sent = (calls[0]!.body as { rules: Array<Record<string, unknown>> }).rules;
      expect(sent.map((x) => x.id)).toEqual([before.rules[0]!.id, "", ""]);
      const after = await entrypoint(z);
      expect(JSON.stringify(after.rules[0])).toBe(JSON.stringify(before.rules[0]));
      expect(after.rules.slice(1).map((x) => (x.action_parameters as { id: string }).id)).toEqual([OWASP, CFM]);
      expect(r.stdout).toContain(
        "the 1 rule(s) it holds are sent back unchanged, by id, and 2 rule(s) of the proposal are added after them",
      );
    },
  );

  it("stops without writing when the entry point changes between the confirmation and the switch", async () => {
    const z = await legacyZone("legacy.example", "pro");
    const ep = await emu.api<{ id: string }>("POST", `zones/${z}/rulesets`, {
      name: "default",
      kind: "zone",
      phase: "http_request_firewall_managed",
      rules: [SKIP],
    });
    const { io, stdout, stderr } = memoryIO({ env: { CLOUDFLARE_API_TOKEN: TOKEN } });
    // Someone adds a rule while the prompt waits for the answer.
    io.prompt = async () => {
      await emu.api("POST", `zones/${z}/rulesets/${ep.id}/rules`, { ...SKIP, description: "added meanwhile" });
      return "yes";
    };
    await emu.clearRequests();
    const code = await main(["waf-migration", "start", "--zone", z, "--mode", "pending", "--api-url", emu.url], io);
    expect(code, stdout() + stderr()).toBe(1);
    expect(stderr()).toMatch(/entry point changed after it was read and shown .* nothing was changed/);
    expect(await emu.calls({ writesOnly: true })).toEqual([`POST zones/${z}/rulesets/${ep.id}/rules`]);
    expect(await status(z)).toMatchObject({ migration_state: "start" });
  });
});
