import { describe, expect, it } from "vitest";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { createReadContext } from "../../../src/engine/read.js";
import type { DesiredCustomFields } from "../../../src/sections/custom_fields/index.js";
import type { DesiredZone } from "../../../src/sections/index.js";
import {
  diffCustomFields,
  fieldsOfRule,
  LOG_FIELDS_PHASE,
  logCustomFields,
  normalizeCustomFields,
} from "../../../src/sections/custom_fields/custom-fields.js";
import type { Entrypoint, LiveRule } from "../../../src/sections/shared/entrypoint.js";
import { recordedResult } from "../recorded.js";
import { NO_SECRETS } from "../../../src/secrets/index.js";

const Z = "0123456789abcdef0123456789abcdef";
const EP = "e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1";
const RULE = "f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1";

const zone = (fields: Partial<DesiredCustomFields> | undefined): DesiredZone => ({
  zone_id: Z,
  ...(fields
    ? { logs: { prune: true, custom_fields: { request_headers: [], response_headers: [], cookies: [], ...fields } } }
    : {}),
});
const rule = (params: Record<string, unknown>, extra: Partial<LiveRule> = {}): LiveRule => ({
  id: RULE,
  version: "2",
  action: "log_custom_field",
  expression: "true",
  description: "from the dashboard",
  enabled: true,
  ref: "dash-fields",
  last_updated: "2024-01-01T00:00:00Z",
  action_parameters: params,
  ...extra,
});
const entrypoint = (...rules: LiveRule[]): Entrypoint => ({
  id: EP,
  name: "x",
  phase: "http_log_custom_fields",
  version: "4",
  rules,
});

describe("custom_fields_rule diff", () => {
  it("creates the entry point with the rule in one POST when the phase has none", () => {
    const { changes } = diffCustomFields(zone({ request_headers: ["user-agent", "cf-ray"], cookies: ["__Session"] }), {
      entrypoint: null,
    });
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ kind: "create", resource: "custom_fields_rule", identity: "custom_fields" });
    // Names in the file's order, not sorted.
    expect(changes[0]!.summary).toBe("log request headers +user-agent +cf-ray; cookies +__Session");
    expect(changes[0]!.operations).toEqual([
      {
        method: "POST",
        path: `zones/${Z}/rulesets`,
        body: {
          name: "Zone-level phase entry point",
          kind: "zone",
          description: "zoneform: custom log fields",
          phase: "http_log_custom_fields",
          rules: [
            {
              action: "log_custom_field",
              expression: "true",
              description: "zoneform: custom log fields",
              enabled: true,
              ref: "zoneform-custom-fields",
              // Empty lists are left out: the API wants at least one, none empty.
              action_parameters: {
                request_fields: [{ name: "user-agent" }, { name: "cf-ray" }],
                cookie_fields: [{ name: "__Session" }],
              },
            },
          ],
        },
        // How apply finds it again after a lost answer, and checks nobody made it meanwhile.
        finds: { path: `zones/${Z}/rulesets`, match: { kind: "zone", phase: "http_log_custom_fields" } },
      },
    ]);
  });

  it("adds the rule to an existing entry point that has none", () => {
    const { changes } = diffCustomFields(zone({ response_headers: ["cache-control"] }), { entrypoint: entrypoint() });
    expect(changes[0]!.operations).toEqual([
      {
        method: "POST",
        path: `zones/${Z}/rulesets/${EP}/rules`,
        body: expect.objectContaining({ action_parameters: { response_fields: [{ name: "cache-control" }] } }),
        finds: {
          path: `zones/${Z}/rulesets/phases/http_log_custom_fields/entrypoint`,
          list: "rules",
          match: { ref: "zoneform-custom-fields" },
        },
      },
    ]);
  });

  it("compares names as sets: order and duplicates cause no diff", () => {
    const live = rule({
      request_fields: [{ name: "user-agent" }, { name: "cf-ray" }],
      cookie_fields: [{ name: "__Session" }],
    });
    const z = zone({ request_headers: ["cf-ray", "user-agent", "cf-ray"], cookies: ["__Session"] });
    expect(diffCustomFields(z, { entrypoint: entrypoint(live) }).changes).toEqual([]);
  });

  it("adopts a dashboard rule and patches it whole, keeping its ref, description and expression", () => {
    const live = rule({ request_fields: [{ name: "user-agent" }] });
    const { changes } = diffCustomFields(zone({ request_headers: ["user-agent"], cookies: ["__Session"] }), {
      entrypoint: entrypoint(live),
    });
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ kind: "update", live_id: RULE, summary: "cookies +__Session" });
    expect(changes[0]!.fields).toEqual([{ field: "cookies", before: [], after: ["__Session"] }]);
    expect(changes[0]!.operations).toEqual([
      {
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
      },
    ]);
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

  it(
    "stops the zone when another enabled log_custom_field rule logs fields of its own; with the others " +
      "disabled, warns and manages the first",
    () => {
      const a = rule({ request_fields: [{ name: "user-agent" }] });
      const b = rule({ cookie_fields: [{ name: "x" }] }, { id: "f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2" });
      const both = diffCustomFields(zone({ request_headers: ["user-agent"] }), { entrypoint: entrypoint(a, b) });
      expect(both.changes).toEqual([]);
      expect(both.errors).toEqual([
        `2 log_custom_field rules in the http_log_custom_fields entry point (${a.id}, ${b.id}); zoneform manages ` +
          `one, and the other enabled one(s) (${b.id}) log fields of their own, so the file's could not be met. ` +
          "Delete or disable the others in the dashboard or API (or merge their fields into the file), then plan " +
          "again; nothing in this zone is changed",
      ]);
      const off = rule({ cookie_fields: [{ name: "x" }] }, { id: b.id, enabled: false });
      const { changes, warnings, errors } = diffCustomFields(zone({ request_headers: ["user-agent"] }), {
        entrypoint: entrypoint(a, off),
      });
      expect(errors).toBeUndefined();
      expect(changes).toEqual([]);
      expect(warnings?.[0]).toMatch(/2 log_custom_field rules.*leaving the others \(disabled\) as they are/);
    },
  );

  it("normalizes names: in their order, deduplicated (first kept), header names lower case, cookies as written", () => {
    expect(normalizeCustomFields({ request_headers: ["X-B", "x-a", "x-b"], cookies: ["B", "a", "B", "b"] })).toEqual({
      request_headers: ["x-b", "x-a"],
      transformed_request_headers: [],
      response_headers: [],
      raw_response_headers: [],
      cookies: ["B", "a", "b"],
    });
    expect(
      fieldsOfRule(
        rule({ request_fields: [{ name: "X-Z" }, { name: "x-a" }, { name: 3 }, {}], response_fields: "bad" }),
      ),
    ).toEqual({
      request_headers: ["x-z", "x-a"],
      transformed_request_headers: [],
      response_headers: [],
      raw_response_headers: [],
      cookies: [],
    });
  });

  it("keeps the live order of the names it keeps in a PATCH, new names after them in the file's order", () => {
    const live = rule({
      request_fields: [{ name: "x-c" }, { name: "user-agent" }, { name: "x-a" }, { name: "cf-ray" }],
      cookie_fields: [{ name: "b" }, { name: "a" }],
    });
    const z = zone({ request_headers: ["x-new-2", "cf-ray", "x-new-1", "user-agent", "x-c"], cookies: ["a", "b"] });
    const { changes } = diffCustomFields(z, { entrypoint: entrypoint(live) });
    expect(changes).toHaveLength(1);
    const c = changes[0]!;
    expect(c.summary).toBe("request headers +x-new-2 +x-new-1 -x-a");
    // Cookies are equal as sets: not a field of the change, and sent back in their live order.
    expect(c.fields).toEqual([
      {
        field: "request_headers",
        before: ["x-c", "user-agent", "x-a", "cf-ray"],
        after: ["x-c", "user-agent", "cf-ray", "x-new-2", "x-new-1"],
      },
    ]);
    expect(c.operations[0]!.body).toMatchObject({
      action_parameters: {
        request_fields: [
          { name: "x-c" },
          { name: "user-agent" },
          { name: "cf-ray" },
          { name: "x-new-2" },
          { name: "x-new-1" },
        ],
        cookie_fields: [{ name: "b" }, { name: "a" }],
      },
    });
  });

  it("matches header names case-insensitively and cookie names exactly", () => {
    const live = rule({ request_fields: [{ name: "User-Agent" }], cookie_fields: [{ name: "Session" }] });
    expect(
      diffCustomFields(zone({ request_headers: ["user-agent"], cookies: ["Session"] }), {
        entrypoint: entrypoint(live),
      }).changes,
    ).toEqual([]);
    const { changes } = diffCustomFields(zone({ request_headers: ["user-agent"], cookies: ["session"] }), {
      entrypoint: entrypoint(live),
    });
    expect(changes[0]!.fields).toEqual([{ field: "cookies", before: ["Session"], after: ["session"] }]);
  });

  it("is owned only when the file declares logs.custom_fields", () => {
    expect(logCustomFields.owns(zone(undefined))).toBe(false);
    expect(logCustomFields.owns(zone({}))).toBe(true);
  });
});

describe("custom_fields_rule as the real API answered them (cft_log_fields_ruleset)", () => {
  const read = async (z: DesiredZone) => {
    const path = `zones/${Z}/rulesets/phases/${LOG_FIELDS_PHASE}/entrypoint`;
    const client = {
      async request(method: string, p: string) {
        if (method !== "GET" || p !== path) throw new Error(`unexpected ${method} ${p}`);
        return recordedResult("cft_log_fields_ruleset");
      },
    } as unknown as CloudflareClient;
    const desired = { version: 1 as const, safety: { max_deletes: 5 }, zones: [], secrets: NO_SECRETS, files: [] };
    return logCustomFields.read(createReadContext(client, desired), z);
  };
  const RECORDED_RULE = "17a0d1e23a3444ccbd5e58fc7793649a";
  const RECORDED_SET = "4b9724cc601c443c9dfa506d8b566dc2";

  it("reads the names in the order the user wrote them", async () => {
    const { live } = await read(zone({}));
    expect(fieldsOfRule(live.entrypoint!.rules[0]!)).toEqual({
      request_headers: ["request", "fields"],
      transformed_request_headers: [],
      response_headers: ["response", "fields"],
      raw_response_headers: [],
      cookies: ["cookie", "fields"],
    });
  });

  it("plans nothing for a file that states what it holds, in any order", async () => {
    for (const fields of [
      {
        request_headers: ["request", "fields"],
        response_headers: ["response", "fields"],
        cookies: ["cookie", "fields"],
      },
      {
        request_headers: ["fields", "Request"],
        response_headers: ["fields", "response", "fields"],
        cookies: ["fields", "cookie"],
      },
    ]) {
      const z = zone(fields);
      const { live } = await read(z);
      expect(diffCustomFields(z, live), JSON.stringify(fields)).toEqual({ changes: [], warnings: [] });
    }
  });

  it("keeps request, fields in that order when a name is added", async () => {
    const z = zone({
      request_headers: ["user-agent", "fields", "request"],
      response_headers: ["response", "fields"],
      cookies: ["cookie", "fields"],
    });
    const { live } = await read(z);
    const { changes } = diffCustomFields(z, live);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.fields).toEqual([
      { field: "request_headers", before: ["request", "fields"], after: ["request", "fields", "user-agent"] },
    ]);
    expect(changes[0]!.operations).toEqual([
      {
        method: "PATCH",
        path: `zones/${Z}/rulesets/${RECORDED_SET}/rules/${RECORDED_RULE}`,
        body: {
          action: "log_custom_field",
          expression: "true",
          description: "zone",
          ref: RECORDED_RULE,
          enabled: true,
          action_parameters: {
            request_fields: [{ name: "request" }, { name: "fields" }, { name: "user-agent" }],
            response_fields: [{ name: "response" }, { name: "fields" }],
            cookie_fields: [{ name: "cookie" }, { name: "fields" }],
          },
        },
      },
    ]);
  });
});

describe("custom_fields_rule of 2025: transformed and raw lists, preserve_duplicates", () => {
  // Changelog 2025-04-18 "Custom fields raw and transformed values support"; cloudflare-go
  // LogCustomFieldRuleActionParameters (the shared spec real-answers.md "custom log fields").
  const live = rule(
    {
      request_fields: [{ name: "user-agent" }],
      transformed_request_fields: [{ name: "x-forwarded-for" }],
      response_fields: [{ name: "set-cookie", preserve_duplicates: true }, { name: "cache-control" }],
      raw_response_fields: [{ name: "server", preserve_duplicates: false, future_flag: "kept" }],
      cookie_fields: [{ name: "__Session" }],
      future_list: [{ name: "x" }],
    },
    { logging: { enabled: true }, future_rule_field: { a: 1 } },
  );

  it("reads every list and the headers whose duplicates are kept", () => {
    expect(fieldsOfRule(live)).toEqual({
      request_headers: ["user-agent"],
      transformed_request_headers: ["x-forwarded-for"],
      response_headers: ["set-cookie", "cache-control"],
      raw_response_headers: ["server"],
      cookies: ["__Session"],
      preserve_duplicates: { response_headers: { "set-cookie": true } },
    });
  });

  it("plans nothing for a file that names the fields without stating preserve_duplicates", () => {
    const z = zone({
      request_headers: ["user-agent"],
      transformed_request_headers: ["x-forwarded-for"],
      response_headers: ["cache-control", "set-cookie"],
      raw_response_headers: ["server"],
      cookies: ["__Session"],
    });
    expect(diffCustomFields(z, { entrypoint: entrypoint(live) }).changes).toEqual([]);
  });

  it("a PATCH changing request_fields carries every other list, item and key of the live rule unchanged", () => {
    const z = zone({
      request_headers: ["user-agent", "cf-ray"],
      transformed_request_headers: ["x-forwarded-for"],
      response_headers: ["cache-control", "set-cookie"],
      raw_response_headers: ["server"],
      cookies: ["__Session"],
    });
    const { changes } = diffCustomFields(z, { entrypoint: entrypoint(live) });
    expect(changes[0]!.summary).toBe("request headers +cf-ray");
    const { id: _id, version: _v, last_updated: _l, ...writable } = live;
    expect(changes[0]!.operations).toEqual([
      {
        method: "PATCH",
        path: `zones/${Z}/rulesets/${EP}/rules/${RULE}`,
        body: {
          ...writable,
          enabled: true,
          action_parameters: {
            ...live.action_parameters,
            request_fields: [{ name: "user-agent" }, { name: "cf-ray" }],
          },
        },
      },
    ]);
  });

  it("states preserve_duplicates by name: only the item named changes, and the plan says so", () => {
    const z = zone({
      request_headers: ["user-agent"],
      transformed_request_headers: ["x-forwarded-for"],
      response_headers: ["set-cookie", "cache-control"],
      raw_response_headers: ["server"],
      cookies: ["__Session"],
      preserve_duplicates: { raw_response_headers: { server: true }, response_headers: { "set-cookie": true } },
    });
    const { changes } = diffCustomFields(z, { entrypoint: entrypoint(live) });
    expect(changes[0]!.fields).toEqual([
      { field: "raw_response_headers.server.preserve_duplicates", before: false, after: true },
    ]);
    expect(changes[0]!.summary).toBe("keep duplicates of raw_response_headers.server");
    const body = changes[0]!.operations[0]!.body as { action_parameters: Record<string, unknown> };
    expect(body.action_parameters.raw_response_fields).toEqual([
      { name: "server", preserve_duplicates: true, future_flag: "kept" },
    ]);
    expect(body.action_parameters.response_fields).toEqual(live.action_parameters!.response_fields);
  });

  it("a new rule carries the new lists and what the file states of preserve_duplicates", () => {
    const z = zone({
      transformed_request_headers: ["X-Real-IP"],
      raw_response_headers: ["set-cookie", "server"],
      preserve_duplicates: { raw_response_headers: { "set-cookie": true } },
    });
    const body = diffCustomFields(z, { entrypoint: entrypoint() }).changes[0]!.operations[0]!.body as {
      action_parameters: unknown;
    };
    expect(body.action_parameters).toEqual({
      transformed_request_fields: [{ name: "x-real-ip" }],
      raw_response_fields: [{ name: "set-cookie", preserve_duplicates: true }, { name: "server" }],
    });
  });
});
