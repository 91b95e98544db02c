// Which writes Cloudflare is asked to check first (engine/dry-run.ts): exactly those the official SDK declares a
// `dry_run` query parameter for (the `cloudflare` package 7.3.0, read from its declarations), as the operations
// zoneform's sections build them; no other write (Page Shield, Logpush, a write with a query of its own).
import { describe, expect, it } from "vitest";
import { takesDryRun, writesToCheck } from "../../../src/engine/dry-run.js";
import type { Operation, Plan } from "../../../src/model/plan.js";
import { addRuleOp, createEntrypointOp, deleteRuleOp, patchRuleOp } from "../../../src/sections/shared/entrypoint.js";
import { sdkFields, sdkVersion } from "../../helpers/sdk-declarations.js";

const Z = "0123456789abcdef0123456789abcdef";
const RS = "1111111111111111111111111111111a";
const RULE = "2222222222222222222222222222222b";
const PHASE = "http_request_firewall_managed";

const declaresDryRun = (file: string, iface: string) => sdkFields(file, iface).some((f) => f.name === "dry_run");

describe("the writes that take a dry run", () => {
  it("are the ones the SDK declares dry_run on, for each operation the rulesets sections build", () => {
    expect(sdkVersion()).toBe("7.3.0");
    const cases: Array<[Operation, string, string]> = [
      [createEntrypointOp(Z, PHASE, "d", []), "rulesets/rulesets.d.ts", "RulesetCreateParams"],
      [
        addRuleOp(Z, RS, { action: "execute", expression: "true", ref: "r" }, PHASE),
        "rulesets/rules.d.ts",
        "RuleCreateParams.ExecuteRule",
      ],
      [
        patchRuleOp(Z, RS, { id: RULE, action: "execute", expression: "true" }, { enabled: false }),
        "rulesets/rules.d.ts",
        "RuleEditParams.ExecuteRule",
      ],
      [deleteRuleOp(Z, RS, RULE), "rulesets/rules.d.ts", "RuleDeleteParams"],
      [{ method: "PUT", path: `zones/${Z}/rulesets/${RS}` }, "rulesets/rulesets.d.ts", "RulesetUpdateParams"],
      [{ method: "DELETE", path: `zones/${Z}/rulesets/${RS}` }, "rulesets/rulesets.d.ts", "RulesetDeleteParams"],
      [
        { method: "PUT", path: `zones/${Z}/rulesets/phases/${PHASE}/entrypoint` },
        "rulesets/phases/phases.d.ts",
        "PhaseUpdateParams",
      ],
    ];
    for (const [op, file, iface] of cases) {
      expect(declaresDryRun(file, iface), `${iface} declares dry_run`).toBe(true);
      expect(takesDryRun(op), `${op.method} ${op.path}`).toBe(true);
    }
    // The log-fields rule too, created and edited through the same calls.
    expect(declaresDryRun("rulesets/rules.d.ts", "RuleCreateParams.LogCustomFieldRule")).toBe(true);
    expect(declaresDryRun("rulesets/rules.d.ts", "RuleEditParams.LogCustomFieldRule")).toBe(true);
  });

  it("are no other writes: Page Shield, Logpush, a query of its own (the WAF migration switch), reads", () => {
    expect(declaresDryRun("page-shield/policies.d.ts", "PolicyCreateParams")).toBe(false);
    const none: Operation[] = [
      { method: "POST", path: `zones/${Z}/page_shield/policies` },
      { method: "PUT", path: `zones/${Z}/page_shield` },
      { method: "POST", path: `zones/${Z}/logpush/jobs` },
      { method: "PATCH", path: `zones/${Z}/custom_hostnames/${RULE}` },
      {
        method: "PUT",
        path: `zones/${Z}/rulesets/phases/${PHASE}/entrypoint`,
        query: { waf_migration: "pending", phase_two: "1" },
      },
      { method: "GET", path: `zones/${Z}/rulesets/${RS}` },
      { method: "POST", path: `zones/${Z}/rulesets/phases` },
      { method: "POST", path: `zones/${Z}/rulesets/${RS}/rules/${RULE}` },
    ];
    for (const op of none) expect(takesDryRun(op), `${op.method} ${op.path}`).toBe(false);
  });

  it("are gathered from every zone of a plan, each with its change", () => {
    const change = (zone: string, ops: Operation[]) => ({
      kind: "update" as const,
      resource: "waf_managed_rules",
      zone_id: zone,
      identity: "owasp",
      fields: [],
      operations: ops,
    });
    const plan = {
      zones: [
        {
          zone_id: Z,
          name: "a.example",
          changes: [change(Z, [{ method: "PUT", path: `zones/${Z}/page_shield` }, deleteRuleOp(Z, RS, RULE)])],
        },
        { zone_id: RS, changes: [change(RS, [createEntrypointOp(RS, PHASE, "d", [])])] },
      ],
    } as unknown as Plan;
    expect(writesToCheck(plan).map((w) => `${w.label} ${w.op.method} ${w.op.path}`)).toEqual([
      `a.example DELETE zones/${Z}/rulesets/${RS}/rules/${RULE}`,
      `${RS} POST zones/${RS}/rulesets`,
    ]);
  });
});
