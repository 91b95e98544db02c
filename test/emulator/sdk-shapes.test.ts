// Request bodies exactly as the official TypeScript SDK (cloudflare-typescript, 2026) builds them:
// path parameters (zone_id, ruleset_id) are taken out of the params object and the rest is the JSON
// body, optional fields included as the SDK's own examples send them. The emulator must accept them.
import { describe, expect, it } from "vitest";
import { useEmulator, ZONE, type TestEmulator } from "../helpers/cli.js";

const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const THRESHOLD_RULE = "6179ae15870a4bb7b2d480d4843b323c";
const PATH_PARAMS = ["zone_id", "account_id", "ruleset_id"];

const getEmu = useEmulator();

/** What the SDK puts on the wire for `params`: everything but the path parameters. */
function sdkBody(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([k]) => !PATH_PARAMS.includes(k)));
}

async function call(emu: TestEmulator, method: string, path: string, params?: Record<string, unknown>) {
  const res = await emu.call(method, path, params === undefined ? undefined : sdkBody(params));
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body?.errors)}`).toBeLessThan(300);
  return res;
}

describe("rulesets through the SDK's shapes", () => {
  it("client.rulesets.create with the SDK example rule (id and logging included)", async () => {
    const emu = getEmu();
    const res = await call(emu, "POST", `zones/${ZONE.com}/rulesets`, {
      zone_id: ZONE.com,
      kind: "zone",
      name: "My ruleset",
      phase: "http_request_firewall_custom",
      description: "My ruleset to block some traffic",
      rules: [
        {
          action: "block",
          action_parameters: {
            response: { content: '{"success": false}', content_type: "application/json", status_code: 400 },
          },
          description: "Block when the IP address is not 1.1.1.1",
          enabled: true,
          expression: "ip.src ne 1.1.1.1",
          id: "3a03d665bac047339bb530ecb439a90d",
          logging: { enabled: true },
          ref: "my_ref",
        },
      ],
    });
    expect(res.body.result.rules[0]).toMatchObject({ ref: "my_ref", logging: { enabled: true } });
  });

  it("client.rulesets.phases.update, rules.create/edit/delete for the OWASP deployment", async () => {
    const emu = getEmu();
    const entry = await call(emu, "PUT", `zones/${ZONE.com}/rulesets/phases/http_request_firewall_managed/entrypoint`, {
      zone_id: ZONE.com,
      description: "zone entry point",
      name: "default",
      rules: [],
    });
    const rulesetId = entry.body.result.id as string;
    const created = await call(emu, "POST", `zones/${ZONE.com}/rulesets/${rulesetId}/rules`, {
      zone_id: ZONE.com,
      action: "execute",
      action_parameters: { id: OWASP, version: "latest" },
      description: "zoneform: OWASP",
      enabled: true,
      expression: "true",
      ref: "zoneform-owasp",
      position: { index: 1 },
    });
    const ruleId = created.body.result.rules[0].id as string;
    const edited = await call(emu, "PATCH", `zones/${ZONE.com}/rulesets/${rulesetId}/rules/${ruleId}`, {
      ruleset_id: rulesetId,
      zone_id: ZONE.com,
      action: "execute",
      action_parameters: {
        id: OWASP,
        overrides: {
          categories: [
            { category: "paranoia-level-3", enabled: false },
            { category: "paranoia-level-4", enabled: false },
          ],
          rules: [{ id: THRESHOLD_RULE, action: "managed_challenge", score_threshold: 40, enabled: true }],
        },
      },
      description: "zoneform: OWASP",
      enabled: true,
      expression: "true",
      ref: "zoneform-owasp",
      logging: { enabled: true },
    });
    expect(edited.body.result.rules[0]).toMatchObject({ id: ruleId, version: "2", ref: "zoneform-owasp" });
    const moved = await call(emu, "PATCH", `zones/${ZONE.com}/rulesets/${rulesetId}/rules/${ruleId}`, {
      ruleset_id: rulesetId,
      zone_id: ZONE.com,
      position: { after: "" },
    });
    expect(moved.body.result.rules[0].version).toBe("2");
    const deleted = await call(emu, "DELETE", `zones/${ZONE.com}/rulesets/${rulesetId}/rules/${ruleId}`);
    expect(deleted.body.result.rules).toEqual([]);
  });

  it("client.rulesets.phases.update with a log_custom_field rule, and list with cursor params", async () => {
    const emu = getEmu();
    await call(emu, "PUT", `zones/${ZONE.com}/rulesets/phases/http_log_custom_fields/entrypoint`, {
      zone_id: ZONE.com,
      rules: [
        {
          action: "log_custom_field",
          action_parameters: {
            cookie_fields: [{ name: "__Session" }],
            request_fields: [{ name: "user-agent" }],
            response_fields: [{ name: "cache-control" }],
          },
          description: "zoneform: custom log fields",
          enabled: true,
          expression: "true",
          ref: "zoneform-log-fields",
        },
      ],
    });
    const list = await call(emu, "GET", `zones/${ZONE.com}/rulesets?per_page=20`);
    expect(list.body.result_info).toMatchObject({ per_page: 20, cursor: "" });
  });
});

describe("logpush through the SDK's shapes", () => {
  const destination = "s3://mybucket/logs?region=us-west-2";

  it("ownership.create, ownership.validate, jobs.create/update/delete, validate and fields", async () => {
    const emu = getEmu();
    const z = `zones/${ZONE.com}/logpush`;
    await call(emu, "POST", `${z}/ownership`, { zone_id: ZONE.com, destination_conf: destination });
    const token = (await emu.callAdmin("GET", `ownership/${ZONE.com}?destination=${encodeURIComponent(destination)}`))
      .body.token as string;
    const valid = await call(emu, "POST", `${z}/ownership/validate`, {
      zone_id: ZONE.com,
      destination_conf: destination,
      ownership_challenge: token,
    });
    expect(valid.body.result.valid).toBe(true);
    await call(emu, "POST", `${z}/validate/destination`, { zone_id: ZONE.com, destination_conf: destination });
    await call(emu, "POST", `${z}/validate/destination/exists`, { zone_id: ZONE.com, destination_conf: destination });
    const outputOptions = {
      "CVE-2021-44228": false,
      batch_prefix: "",
      batch_suffix: "",
      field_delimiter: ",",
      field_names: ["ClientIP", "EdgeStartTimestamp", "RayID"],
      merge_subrequests: false,
      output_type: "ndjson",
      record_delimiter: "",
      record_prefix: "{",
      record_suffix: "}\n",
      record_template: "",
      sample_rate: 1,
      timestamp_format: "unixnano",
    };
    const created = await call(emu, "POST", `${z}/jobs`, {
      zone_id: ZONE.com,
      destination_conf: destination,
      dataset: "http_requests",
      enabled: false,
      filter: '{"where":{"and":[{"key":"ClientCountry","operator":"!eq","value":"ca"}]}}',
      frequency: "high",
      kind: "",
      logpull_options: "fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339",
      max_upload_bytes: 5000000,
      max_upload_interval_seconds: 30,
      max_upload_records: 1000,
      name: "example.com",
      output_options: outputOptions,
      ownership_challenge: token,
    });
    expect(created.body.result.output_options).toEqual(outputOptions);
    const id = created.body.result.id as number;
    const updated = await call(emu, "PUT", `${z}/jobs/${id}`, {
      zone_id: ZONE.com,
      destination_conf: destination,
      enabled: true,
      // The SDK types filter as string | null, but the API refuses null; "" removes the filter.
      filter: "",
      kind: "",
      max_upload_bytes: 5000000,
      max_upload_interval_seconds: 30,
      max_upload_records: 1000,
      name: "example.com",
      output_options: outputOptions,
      ownership_challenge: token,
    });
    expect(updated.body.result).toMatchObject({ enabled: true });
    expect(updated.body.result).not.toHaveProperty("filter");
    await call(emu, "GET", `${z}/datasets/http_requests/fields`);
    await call(emu, "GET", `${z}/jobs/${id}`);
    await call(emu, "DELETE", `${z}/jobs/${id}`);
  });
});
