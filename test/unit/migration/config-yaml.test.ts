import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseConfigText } from "../../../src/config/index.js";
import { createEmptyZone } from "../../../src/emulator/seed.js";
import { seedAccountRulesets } from "../../../src/emulator/areas/rulesets/seed.js";
import { buildMigrationConfig } from "../../../src/emulator/areas/waf_migration/config.js";
import {
  documentedOwasp,
  mapMigrationConfig,
  renderMigrationYaml,
  type MigrationConfig,
} from "../../../src/migration/config-yaml.js";
import { deriveOwasp, OWASP_RULESET_ID } from "../../../src/sections/waf/managed-ruleset.js";

const Z = "0123456789abcdef0123456789abcdef";
const owasp = deriveOwasp(
  seedAccountRulesets("2025-06-01T00:00:00.000Z").find((r) => r.id === OWASP_RULESET_ID)! as never,
)!;

/** The proposal the emulator makes for a zone whose previous WAF had these settings. */
function proposal(
  sensitivity: "high" | "medium" | "low" | "default",
  action: "block" | "challenge" | "simulate",
): MigrationConfig {
  const zone = createEmptyZone("legacy.example", "pro", { wafMode: "previous" });
  zone.waf_migration.old_sensitivity = sensitivity;
  zone.waf_migration.old_action = action;
  return buildMigrationConfig(zone);
}

describe("mapping the migration proposal to the waf section", () => {
  it.each([
    ["high", 2, 40],
    ["medium", 1, 25],
    ["low", 1, 40],
    ["default", 2, 40],
  ] as const)("old sensitivity %s → paranoia %i, threshold %i", (sensitivity, paranoia, threshold) => {
    const { waf, warnings } = mapMigrationConfig(proposal(sensitivity, "block"), owasp);
    expect(warnings).toEqual([]);
    expect(waf).toEqual({
      owasp: { enabled: true, paranoia_level: paranoia, score_threshold: threshold, action: "block" },
      cloudflare_managed: { enabled: true },
    });
  });

  it("keeps the proposal's action: Simulate became log, Challenge managed_challenge", () => {
    expect(mapMigrationConfig(proposal("default", "simulate"), owasp).waf.owasp.action).toBe("log");
    expect(mapMigrationConfig(proposal("default", "challenge"), owasp).waf.owasp.action).toBe("managed_challenge");
    expect(mapMigrationConfig(proposal("default", "simulate"), owasp).summary[0]).toMatch(/old action Simulate/);
  });

  it("names the old sensitivities a proposal comes from", () => {
    expect(mapMigrationConfig(proposal("medium", "block"), owasp).summary[0]).toMatch(
      /paranoia level 1, score threshold 25 \(high\), action block \(old sensitivity Medium; old action Block\)/,
    );
  });

  it("uses the documented last rule and defaults when the ruleset could not be read", () => {
    expect(documentedOwasp().lastRuleId).toBe(owasp.lastRuleId);
    expect(mapMigrationConfig(proposal("low", "block"), null).waf.owasp).toEqual(
      mapMigrationConfig(proposal("low", "block"), owasp).waf.owasp,
    );
  });

  it("reads paranoia 4 and the ruleset defaults when the proposal overrides nothing", () => {
    const bare: MigrationConfig = {
      name: "default",
      rules: [{ action: "execute", expression: "true", enabled: true, action_parameters: { id: OWASP_RULESET_ID } }],
    };
    const mapped = mapMigrationConfig(bare, owasp);
    expect(mapped.waf).toEqual({
      owasp: { enabled: true, paranoia_level: 4, score_threshold: 40, action: "block" },
      cloudflare_managed: { enabled: false },
    });
  });

  it("warns when the paranoia overrides are not the canonical set a plan would write", () => {
    const odd: MigrationConfig = {
      name: "default",
      rules: [
        {
          action: "execute",
          expression: "true",
          action_parameters: {
            id: OWASP_RULESET_ID,
            overrides: { categories: [{ category: "paranoia-level-3", enabled: false }] },
          },
        },
      ],
    };
    const mapped = mapMigrationConfig(odd, owasp);
    expect(mapped.waf.owasp.paranoia_level).toBe(2);
    expect(mapped.warnings[0]).toMatch(/plan will rewrite them/);
  });

  it("counts rules it does not own (migrated skip rules) without stating them", () => {
    const config = proposal("default", "block");
    config.rules.unshift({
      action: "skip",
      expression: 'http.request.uri.path eq "/health"',
      action_parameters: { ruleset: "current" },
    });
    expect(mapMigrationConfig(config, owasp).summary.at(-1)).toMatch(/^1 other rule\(s\).*does not manage them$/);
  });
});

describe("rendering the zoneform file", () => {
  const mapped = mapMigrationConfig(proposal("high", "simulate"), owasp);
  const text = renderMigrationYaml({
    zoneId: Z,
    zoneName: "legacy.example",
    waf: mapped.waf,
    schemaRef: "../schemas/zoneform.schema.json",
    header: ["Proposed."],
  });

  it("starts with the yaml-language-server schema header", () => {
    expect(text.split("\n")[0]).toBe("# yaml-language-server: $schema=../schemas/zoneform.schema.json");
    expect(text).toContain("score_threshold: 40 # medium");
    expect(text).toContain("paranoia_level: 2 # from old sensitivity High or Default");
  });

  it("is a valid zoneform file that states exactly the mapped waf section", () => {
    expect(parse(text)).toEqual({ version: 1, zones: [{ zone_id: Z, name: "legacy.example", waf: mapped.waf }] });
    const { desired } = parseConfigText(text, "waf.yaml", {});
    expect(desired.zones[0]!.waf).toEqual({
      // The file states no expression: both execute rules run on every request.
      owasp: { enabled: true, paranoia_level: 2, score_threshold: 40, action: "log", expression: "true" },
      cloudflare_managed: { enabled: true, expression: "true" },
    });
  });
});
