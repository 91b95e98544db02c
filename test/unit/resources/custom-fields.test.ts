import { describe, expect, it } from "vitest";
import type { DesiredCustomFields, DesiredZone } from "../../../src/model/desired.js";
import { diffCustomFields, logCustomFields, normaliseCustomFields } from "../../../src/resources/custom-fields.js";
import type { Entrypoint, LiveRule } from "../../../src/resources/entrypoint.js";

const Z = "0123456789abcdef0123456789abcdef";
const EP = "e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1";
const RULE = "f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1";

const zone = (fields: Partial<DesiredCustomFields> | undefined): DesiredZone => ({
  zone_id: Z,
  ...(fields ? { logs: { prune: true, custom_fields: { request_headers: [], response_headers: [], cookies: [], ...fields } } } : {}),
});
const rule = (params: Record<string, unknown>, extra: Partial<LiveRule> = {}): LiveRule => ({
  id: RULE, version: "2", action: "log_custom_field", expression: "true", description: "from the dashboard", enabled: true,
  ref: "dash-fields", last_updated: "2024-01-01T00:00:00Z", action_parameters: params, ...extra,
});
const entrypoint = (...rules: LiveRule[]): Entrypoint => ({ id: EP, name: "x", phase: "http_log_custom_fields", version: "4", rules });

describe("log_custom_fields diff", () => {
  it("creates the entry point with the rule in one POST when the phase has none", () => {
    const { changes } = diffCustomFields(zone({ request_headers: ["user-agent", "cf-ray"], cookies: ["__Session"] }), { entrypoint: null });
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ kind: "create", resource: "log_custom_fields", identity: "custom_fields" });
    expect(changes[0]!.summary).toBe("log request headers +cf-ray +user-agent; cookies +__Session");
    expect(changes[0]!.operations).toEqual([{
      method: "POST",
      path: `zones/${Z}/rulesets`,
      body: {
        name: "Zone-level phase entry point",
        kind: "zone",
        description: "zoneform: custom log fields",
        phase: "http_log_custom_fields",
        rules: [{
          action: "log_custom_field",
          expression: "true",
          description: "zoneform: custom log fields",
          enabled: true,
          ref: "zoneform-custom-fields",
          // Empty lists are left out: the API wants at least one, none empty.
          action_parameters: { request_fields: [{ name: "cf-ray" }, { name: "user-agent" }], cookie_fields: [{ name: "__Session" }] },
        }],
      },
    }]);
  });

  it("adds the rule to an existing entry point that has none", () => {
    const { changes } = diffCustomFields(zone({ response_headers: ["cache-control"] }), { entrypoint: entrypoint() });
    expect(changes[0]!.operations).toEqual([{
      method: "POST",
      path: `zones/${Z}/rulesets/${EP}/rules`,
      body: expect.objectContaining({ action_parameters: { response_fields: [{ name: "cache-control" }] } }),
    }]);
  });

  it("compares names as sets: order and duplicates cause no diff", () => {
    const live = rule({ request_fields: [{ name: "user-agent" }, { name: "cf-ray" }], cookie_fields: [{ name: "__Session" }] });
    const z = zone({ request_headers: ["cf-ray", "user-agent", "cf-ray"], cookies: ["__Session"] });
    expect(diffCustomFields(z, { entrypoint: entrypoint(live) }).changes).toEqual([]);
  });

  it("adopts a dashboard rule and patches it whole, keeping its ref, description and expression", () => {
    const live = rule({ request_fields: [{ name: "user-agent" }] });
    const { changes } = diffCustomFields(zone({ request_headers: ["user-agent"], cookies: ["__Session"] }), { entrypoint: entrypoint(live) });
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ kind: "update", live_id: RULE, summary: "cookies +__Session" });
    expect(changes[0]!.fields).toEqual([{ field: "cookies", before: [], after: ["__Session"] }]);
    expect(changes[0]!.operations).toEqual([{
      method: "PATCH",
      path: `zones/${Z}/rulesets/${EP}/rules/${RULE}`,
      body: {
        action: "log_custom_field",
        expression: "true",
        description: "from the dashboard",
        enabled: true,
        ref: "dash-fields",
        action_parameters: { request_fields: [{ name: "user-agent" }], cookie_fields: [{ name: "__Session" }] },
      },
    }]);
  });

  it("enables a disabled rule", () => {
    const live = rule({ request_fields: [{ name: "user-agent" }] }, { enabled: false });
    const { changes } = diffCustomFields(zone({ request_headers: ["user-agent"] }), { entrypoint: entrypoint(live) });
    expect(changes[0]!.fields).toEqual([{ field: "enabled", before: false, after: true }]);
  });

  it("deletes the rule when every list is empty, and does nothing when there is no rule", () => {
    const live = rule({ request_fields: [{ name: "user-agent" }] });
    const { changes } = diffCustomFields(zone({}), { entrypoint: entrypoint(live) });
    expect(changes.map((c) => [c.kind, c.operations])).toEqual([
      ["delete", [{ method: "DELETE", path: `zones/${Z}/rulesets/${EP}/rules/${RULE}` }]],
    ]);
    expect(diffCustomFields(zone({}), { entrypoint: null }).changes).toEqual([]);
    expect(diffCustomFields(zone({}), { entrypoint: entrypoint() }).changes).toEqual([]);
  });

  it("manages the first of several log_custom_field rules, with a warning", () => {
    const a = rule({ request_fields: [{ name: "user-agent" }] });
    const b = rule({ cookie_fields: [{ name: "x" }] }, { id: "f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2" });
    const { changes, warnings } = diffCustomFields(zone({ request_headers: ["user-agent"] }), { entrypoint: entrypoint(a, b) });
    expect(changes).toEqual([]);
    expect(warnings?.[0]).toMatch(/2 log_custom_field rules/);
  });

  it("normalises names: sorted, deduplicated, header names lower case, cookies as written", () => {
    expect(normaliseCustomFields({ request_headers: ["X-B", "x-a", "x-b"], cookies: ["B", "a", "B"] })).toEqual({
      request_headers: ["x-a", "x-b"],
      response_headers: [],
      cookies: ["B", "a"],
    });
  });

  it("is owned only when the file declares logs.custom_fields", () => {
    expect(logCustomFields.owns(zone(undefined))).toBe(false);
    expect(logCustomFields.owns(zone({}))).toBe(true);
  });
});
