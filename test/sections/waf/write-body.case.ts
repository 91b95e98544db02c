import { expect } from "vitest";
import { type LiveRule, writableRule } from "../../../src/sections/shared/entrypoint.js";
import { CLOUDFLARE_MANAGED_RULESET_ID, OWASP_RULESET_ID } from "../../../src/sections/waf/managed-ruleset.js";
import { sdkFields } from "../../helpers/sdk-declarations.js";
import { entrypoint, onlyChange, type WriteBodyCase, zoneOf } from "../write-body-helpers.js";

export const writeBody: WriteBodyCase = () => {
  // A rule PATCH replaces the whole rule: every writable field of the live rule, unknown ones
  // included, with only the planned change.
  const rule: LiveRule = {
    id: "2222222222222222222222222222222b",
    version: "4",
    action: "execute",
    expression: "true",
    description: "made in the dashboard",
    enabled: true,
    ref: "dash-cfm",
    logging: { enabled: true },
    future_field: { nested: [1] },
    last_updated: "2025-01-01T00:00:00Z",
    action_parameters: {
      id: CLOUDFLARE_MANAGED_RULESET_ID,
      version: "latest",
      overrides: { rules: [{ id: "3333333333333333333333333333333c", enabled: false }] },
    },
  };
  const live = {
    entrypoint: entrypoint("http_request_firewall_managed", rule),
    owaspId: OWASP_RULESET_ID,
    cloudflareManagedId: CLOUDFLARE_MANAGED_RULESET_ID,
    owaspRuleset: null,
  };
  const patch = onlyChange(
    "waf",
    "waf_managed_rules",
    zoneOf("waf:\n  cloudflare_managed:\n    enabled: true\n    action: log\n"),
    live,
  ).operations[0]!;
  expect(patch.method).toBe("PATCH");
  const sdk = sdkFields("rulesets/rules.d.ts", "ExecuteRuleParam").map((f) => f.name);
  const writable = writableRule(rule);
  expect(Object.keys(patch.body as object).sort()).toEqual(Object.keys(writable).sort());
  for (const f of sdk.filter((n) => n in writable)) expect(patch.body).toHaveProperty(f);
  expect(patch.body).toEqual({
    ...writable,
    action_parameters: {
      ...rule.action_parameters,
      overrides: { rules: [{ id: "3333333333333333333333333333333c", enabled: false }], action: "log" },
    },
  });
};
