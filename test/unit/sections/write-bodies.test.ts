// Every write that updates a live object carries that object whole, as far as the section writes it:
// every field the API's object has (the official SDK's update parameters, test/helpers/
// sdk-declarations.ts) that the live object holds, from the live object with only the planned change,
// so that nothing is lost whether the API merges or replaces. One case per section of the registry: a
// section added without one fails the first test. Where a body leaves a field out on purpose, the
// case says why (and the section's code does too).
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/index.js";
import type { Change } from "../../../src/model/plan.js";
import { normalizeCustomHostname } from "../../../src/sections/custom_hostnames/custom-hostnames.js";
import { SECTIONS, type DesiredZone } from "../../../src/sections/index.js";
import { normalizeLiveJob } from "../../../src/sections/logpush_jobs/live.js";
import { normalizePolicy } from "../../../src/sections/page_shield/policies.js";
import { writableRule, type LiveRule } from "../../../src/sections/shared/entrypoint.js";
import { CLOUDFLARE_MANAGED_RULESET_ID, OWASP_RULESET_ID } from "../../../src/sections/waf/managed-ruleset.js";
import { sdkFields } from "../../helpers/sdk-declarations.js";

const Z = "0123456789abcdef0123456789abcdef";
const RULESET = "1111111111111111111111111111111a";

/** The zone of a file holding `body` (indented under the zone), normalized as plan sees it. */
function zoneOf(body: string): DesiredZone {
  const yaml = `version: 1\nzones:\n  - zone_id: ${Z}\n${body
    .split("\n")
    .map((l) => (l ? `    ${l}` : l))
    .join("\n")}`;
  return parseConfigText(yaml, "bodies.yaml", {}).desired.zones[0]!;
}

/** The one change a kind of `section` plans for `zone` against `live`. */
function onlyChange(section: string, kind: string, zone: DesiredZone, live: unknown): Change {
  const k = SECTIONS.find((s) => s.name === section)!.kinds.find((x) => x.name === kind)!;
  const { changes, errors } = k.diff(zone, live);
  expect(errors ?? []).toEqual([]);
  expect(changes).toHaveLength(1);
  return changes[0]!;
}

/** The body fields of an SDK update (its path parameters left out). */
const sdkBody = (file: string, iface: string) =>
  sdkFields(file, iface)
    .map((f) => f.name)
    .filter((n) => n !== "zone_id" && n !== "account_id");

const entrypoint = (phase: string, rule: LiveRule) => ({
  id: RULESET,
  name: "default",
  phase,
  version: "3",
  rules: [rule],
});

const CASES: Record<string, () => void> = {
  page_shield() {
    // A policy PUT: the five fields of PolicyUpdateParams, the live values with the one change.
    const live = normalizePolicy({
      id: "p1",
      description: "Checkout",
      action: "allow",
      expression: 'http.request.uri.path contains "/checkout"',
      value: "script-src 'self'",
      enabled: true,
    });
    const zone = zoneOf(
      "page_shield:\n  policies:\n    - description: Checkout\n      action: allow\n      expression: " +
        `'http.request.uri.path contains "/checkout"'\n      value: "script-src 'self' https://js.stripe.com"\n`,
    );
    const put = onlyChange("page_shield", "page_shield_policy", zone, [live]).operations[0]!;
    expect(put.method).toBe("PUT");
    expect(Object.keys(put.body as object).sort()).toEqual(
      sdkBody("page-shield/policies.d.ts", "PolicyUpdateParams").sort(),
    );
    const { id: _id, ...rest } = live;
    expect(put.body).toEqual({ ...rest, value: "script-src 'self' https://js.stripe.com" });

    // The settings PUT: every setting of PageShieldUpdateParams the live answer states.
    const settings = { enabled: false, use_cloudflare_reporting_endpoint: true, use_connection_url_path: false };
    const set = onlyChange("page_shield", "page_shield_settings", zoneOf("page_shield:\n  enabled: true\n"), settings)
      .operations[0]!;
    expect(set.method).toBe("PUT");
    expect(Object.keys(set.body as object).sort()).toEqual(
      sdkBody("page-shield/page-shield.d.ts", "PageShieldUpdateParams").sort(),
    );
    expect(set.body).toEqual({ ...settings, enabled: true });
  },

  logpush_jobs() {
    // A job PUT: every field of JobUpdateParams the file manages on the job, changed or not, as the
    // file states it (the live job where they agree). Left out on purpose, each kept by the PUT
    // (Cloudflare's own example: a PUT keeps what it does not carry): the destination and its
    // ownership proof unless the destination changes, dataset and kind (they cannot change in place),
    // and the deprecated frequency and logpull_options.
    const raw = {
      id: 7,
      name: "http",
      dataset: "http_requests",
      destination_conf: "https://logs.example.com/in",
      enabled: true,
      kind: "",
      filter: '{"where":{"key":"ClientRequestHost","operator":"eq","value":"example.com"}}',
      output_options: { field_names: ["RayID"], sample_rate: 0.5 },
      max_upload_records: 5000,
      filter_attack_traffic: true,
    };
    const zone = zoneOf(
      "logs:\n  logpush_jobs:\n    - name: http\n      dataset: http_requests\n      destination_conf: " +
        "https://logs.example.com/in\n      enabled: false\n      filter: {where: {key: ClientRequestHost, " +
        "operator: eq, value: example.com}}\n      output_options: {field_names: [RayID], sample_rate: 0.5}\n" +
        "      max_upload_records: 5000\n      filter_attack_traffic: true\n",
    );
    const put = onlyChange("logpush_jobs", "logpush_job", zone, [normalizeLiveJob(raw)]).operations[0]!;
    expect(put.method).toBe("PUT");
    const onPurpose = ["destination_conf", "ownership_challenge", "dataset", "kind", "frequency", "logpull_options"];
    const stated = Object.keys(raw).filter((k) => k !== "id");
    const expected = sdkBody("logpush/jobs.d.ts", "JobUpdateParams").filter(
      (f) => !onPurpose.includes(f) && stated.includes(f),
    );
    expect(Object.keys(put.body as object).sort()).toEqual(expected.sort());
    expect(put.body).toEqual({
      name: "http",
      enabled: false,
      filter: raw.filter,
      output_options: raw.output_options,
      max_upload_records: 5000,
      filter_attack_traffic: true,
    });
  },

  waf() {
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
  },

  custom_fields() {
    const rule: LiveRule = {
      id: "4444444444444444444444444444444d",
      version: "2",
      action: "log_custom_field",
      expression: "true",
      description: "from the dashboard",
      enabled: true,
      ref: "dash-fields",
      logging: { enabled: true },
      action_parameters: {
        request_fields: [{ name: "user-agent" }],
        response_fields: [{ name: "set-cookie", preserve_duplicates: true }],
        future_fields: [{ name: "x" }],
      },
    };
    const patch = onlyChange(
      "custom_fields",
      "custom_fields_rule",
      zoneOf(
        "logs:\n  custom_fields:\n    request_headers: [user-agent, cf-ray]\n    response_headers: [set-cookie]\n",
      ),
      { entrypoint: entrypoint("http_log_custom_fields", rule) },
    ).operations[0]!;
    expect(patch.method).toBe("PATCH");
    expect(patch.body).toEqual({
      ...writableRule(rule),
      action_parameters: { ...rule.action_parameters, request_fields: [{ name: "user-agent" }, { name: "cf-ray" }] },
    });
  },

  custom_hostnames() {
    // A PATCH edits only the parts of the hostname it carries (an HTTP PATCH; every body parameter of
    // CustomHostnameEditParams is optional): `ssl` alone, since zoneform manages nothing else of the
    // hostname. Inside it, every ssl field of the SDK's edit that the live hostname holds, carried
    // back as it is, with only the planned change (the uploaded-certificate fields aside: a hostname
    // serving one is never patched).
    const ssl = {
      id: "aa4bd600-4144-46a1-82b8-8ef525922877",
      status: "active",
      method: "txt",
      type: "dv",
      certificate_authority: "google",
      bundle_method: "ubiquitous",
      wildcard: false,
      cloudflare_branding: false,
      settings: { min_tls_version: "1.2", http2: "on", tls_1_3: "on", ciphers: ["ECDHE-RSA-AES128-GCM-SHA256"] },
      txt_name: "_acme-challenge.shop.example",
    };
    const live = normalizeCustomHostname({ id: "234e5416-89bd-44ae-adea-93082b3a88ed", hostname: "shop.example", ssl });
    const patch = onlyChange(
      "custom_hostnames",
      "custom_hostname",
      zoneOf("custom_hostnames:\n  - hostname: shop.example\n    certificate_authority: ssl_com\n"),
      { "shop.example": live },
    ).operations[0]!;
    expect(patch.method).toBe("PATCH");
    const uploaded = ["custom_cert_bundle", "custom_certificate", "custom_csr_id", "custom_key"];
    const expected = sdkBody("custom-hostnames/custom-hostnames.d.ts", "CustomHostnameEditParams.SSL").filter(
      (f) => !uploaded.includes(f) && f in ssl,
    );
    const sent = (patch.body as { ssl: Record<string, unknown> }).ssl;
    expect(Object.keys(sent).sort()).toEqual(expected.sort());
    expect(Object.keys(patch.body as object)).toEqual(["ssl"]);
    const { id: _i, status: _s, txt_name: _t, ...writable } = ssl;
    expect(sent).toEqual({ ...writable, certificate_authority: "ssl_com" });
  },
};

describe("every update carries the whole object the section writes (live values with the change)", () => {
  it("has a case for every section of the registry", () => {
    expect(Object.keys(CASES).sort()).toEqual(SECTIONS.map((s) => s.name).sort());
  });
  for (const [section, check] of Object.entries(CASES)) it(section, check);
});
