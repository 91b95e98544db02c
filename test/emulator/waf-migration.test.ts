// The WAF migration over real HTTP: check, config (the spec's sensitivity and action mapping),
// status, and the entry-point switch's state machine (previous → validation → new on Enterprise,
// previous → new elsewhere, irreversible).
import { describe, expect, it } from "vitest";
import { useEmulator, ZONE, type TestEmulator } from "../helpers/cli.js";

const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const CF_MANAGED = "efb7b8c949ac4650a09736fc376e9aee";
const THRESHOLD_RULE = "6179ae15870a4bb7b2d480d4843b323c";
const ENTRY = (zone: string) => `zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`;

const getEmu = useEmulator();

async function legacyZone(emu: TestEmulator, plan: string, name = `legacy-${plan}.example`): Promise<string> {
  const res = await emu.callAdmin("POST", "zones", { name, plan, waf_migration: "previous" });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

function zoneState(emu: TestEmulator, id: string) {
  return emu.state().zones.find((z) => z.id === id)!;
}

async function switchTo(emu: TestEmulator, zone: string, mode: string) {
  const config = await emu.call("GET", `zones/${zone}/waf_migration/config?phase_two=1`);
  return emu.call("PUT", `${ENTRY(zone)}?waf_migration=${mode}&phase_two=1`, config.body.result);
}

describe("check, config and status", () => {
  it("reports an eligible zone on the previous WAF as start", async () => {
    const emu = getEmu();
    const zone = await legacyZone(emu, "enterprise");
    const res = await emu.call("GET", `zones/${zone}/waf_migration/check?phase_two=1`);
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ compatible: true, migration_state: "start" });
    const status = await emu.call("GET", `zones/${zone}/waf_migration/status`);
    expect(status.body.result).toEqual({
      created: null,
      migration_state: "start",
      new_waf_status: "disabled",
      old_waf_status: "enabled",
      source: null,
    });
  });

  it("explains why a zone is ineligible and refuses to switch it", async () => {
    const emu = getEmu();
    const zone = await legacyZone(emu, "business");
    Object.assign(zoneState(emu, zone).waf_migration, {
      compatible: false,
      reason: "the zone has URI-based WAF overrides; delete them first",
    });
    const check = await emu.call("GET", `zones/${zone}/waf_migration/check?phase_two=1`);
    expect(check.body.result).toEqual({
      compatible: false,
      migration_state: "incompatible",
      reason: "the zone has URI-based WAF overrides; delete them first",
    });
    const res = await emu.call("PUT", `${ENTRY(zone)}?waf_migration=pending&phase_two=1`, {
      name: "default",
      rules: [{ action: "execute", expression: "true", action_parameters: { id: OWASP } }],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/URI-based/);
  });

  it("requires phase_two=1", async () => {
    const emu = getEmu();
    const zone = await legacyZone(emu, "pro");
    expect((await emu.call("GET", `zones/${zone}/waf_migration/check`)).status).toBe(400);
    expect((await emu.call("GET", `zones/${zone}/waf_migration/config`)).status).toBe(400);
  });

  it.each([
    ["high", "block", 2, 40, "block"],
    ["medium", "challenge", 1, 25, "managed_challenge"],
    ["low", "simulate", 1, 40, "log"],
    ["default", "simulate", 2, 40, "log"],
  ] as const)(
    "maps sensitivity %s and action %s to PL%i, threshold %i, %s",
    async (sensitivity, action, level, threshold, newAction) => {
      const emu = getEmu();
      const zone = await legacyZone(emu, "pro");
      Object.assign(zoneState(emu, zone).waf_migration, { old_sensitivity: sensitivity, old_action: action });
      const res = await emu.call("GET", `zones/${zone}/waf_migration/config?phase_two=1`);
      expect(res.status).toBe(200);
      const { name, rules } = res.body.result;
      expect(name).toBe("default");
      const owasp = rules.find((r: any) => r.action_parameters.id === OWASP);
      expect(owasp).toMatchObject({ id: "", action: "execute", expression: "true", enabled: true });
      expect(owasp.action_parameters.overrides.rules).toEqual([
        { id: THRESHOLD_RULE, action: newAction, score_threshold: threshold },
      ]);
      const disabled = owasp.action_parameters.overrides.categories.map((c: { category: string; enabled: boolean }) =>
        c.enabled ? "" : c.category,
      );
      expect(disabled).toEqual([2, 3, 4].filter((n) => n > level).map((n) => `paranoia-level-${n}`));
      expect(rules.some((r: any) => r.action_parameters.id === CF_MANAGED)).toBe(true);
    },
  );
});

describe("the migration switch", () => {
  it("moves an Enterprise zone previous → validation → new and installs the given rules", async () => {
    const emu = getEmu();
    const zone = await legacyZone(emu, "enterprise");
    const validation = await switchTo(emu, zone, "validation");
    expect(validation.status).toBe(200);
    expect(validation.body.result.rules.map((r: any) => r.action_parameters.id)).toEqual([OWASP, CF_MANAGED]);
    expect(validation.body.result.rules[0].id).toMatch(/^[0-9a-f]{32}$/);
    const mid = (await emu.call("GET", `zones/${zone}/waf_migration/status`)).body.result;
    expect(mid).toMatchObject({
      migration_state: "validation",
      new_waf_status: "enabled",
      old_waf_status: "enabled",
      source: "api",
    });
    expect(typeof mid.created).toBe("string");
    expect((await switchTo(emu, zone, "validation")).status).toBe(400);
    const pending = await switchTo(emu, zone, "1");
    expect(pending.status).toBe(200);
    expect(pending.body.result.version).toBe("2");
    const done = (await emu.call("GET", `zones/${zone}/waf_migration/status`)).body.result;
    expect(done).toMatchObject({
      migration_state: "done",
      new_waf_status: "enabled",
      old_waf_status: "disabled",
      created: mid.created,
    });
  });

  it("moves a Pro zone straight to new and refuses validation mode", async () => {
    const emu = getEmu();
    const zone = await legacyZone(emu, "pro");
    const refused = await switchTo(emu, zone, "2");
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toMatch(/only available to Enterprise/);
    expect(zoneState(emu, zone).waf_migration.mode).toBe("previous");
    const res = await switchTo(emu, zone, "pending");
    expect(res.status).toBe(200);
    expect(zoneState(emu, zone).waf_migration.mode).toBe("new");
    const entry = await emu.call("GET", ENTRY(zone));
    expect(entry.body.result.rules).toHaveLength(2);
  });

  it("is irreversible: every migration request after it is refused", async () => {
    const emu = getEmu();
    const zone = await legacyZone(emu, "business");
    expect((await switchTo(emu, zone, "pending")).status).toBe(200);
    for (const mode of ["pending", "validation"]) {
      const res = await emu.call("PUT", `${ENTRY(zone)}?waf_migration=${mode}&phase_two=1`, {
        name: "default",
        rules: [],
      });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toMatch(/irreversible/);
    }
    expect((await emu.call("GET", `zones/${zone}/waf_migration/check?phase_two=1`)).status).toBe(400);
    expect((await emu.call("GET", `zones/${zone}/waf_migration/status`)).status).toBe(200);
  });

  it("lets normal writes deploy managed rulesets once migrated", async () => {
    const emu = getEmu();
    const zone = await legacyZone(emu, "pro");
    const body = { rules: [{ action: "execute", expression: "true", action_parameters: { id: OWASP } }] };
    expect((await emu.call("PUT", ENTRY(zone), body)).status).toBe(400);
    await switchTo(emu, zone, "pending");
    expect((await emu.call("PUT", ENTRY(zone), body)).status).toBe(200);
  });

  it("refuses the seed zones (already on the new WAF), bad modes, other phases and empty rules", async () => {
    const emu = getEmu();
    expect((await emu.call("PUT", `${ENTRY(ZONE.com)}?waf_migration=pending&phase_two=1`, { rules: [] })).status).toBe(
      400,
    );
    const zone = await legacyZone(emu, "enterprise");
    expect((await emu.call("PUT", `${ENTRY(zone)}?waf_migration=now&phase_two=1`, { rules: [] })).status).toBe(400);
    const other = `zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint?waf_migration=pending&phase_two=1`;
    expect((await emu.call("PUT", other, { rules: [] })).status).toBe(400);
    expect((await emu.call("PUT", `${ENTRY(zone)}?waf_migration=pending&phase_two=1`, { rules: [] })).status).toBe(400);
    const dry = await emu.call(
      "PUT",
      `${ENTRY(zone)}?waf_migration=pending&phase_two=1&dry_run=true`,
      (await emu.call("GET", `zones/${zone}/waf_migration/config?phase_two=1`)).body.result,
    );
    expect(dry.body.result).toBeNull();
    expect(zoneState(emu, zone).waf_migration.mode).toBe("previous");
  });
});
