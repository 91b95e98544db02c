// Conformance with the real API: every answer recorded against it (test/fixtures/recorded/) is served
// over HTTP to the client and the planner. Each must parse; a file stating what the answer holds must
// plan no change; a change must send the request a real client (the Terraform provider, Cloudflare's
// docs) sends for it, and nothing zoneform does not own may change.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/cloudflare/client.js";
import type { CloudflareClient } from "../../src/cloudflare/types.js";
import { parseConfigText } from "../../src/config/index.js";
import { planZones } from "../../src/engine/plan.js";
import type { Plan } from "../../src/model/plan.js";
import { normalizeLiveJob } from "../../src/sections/logpush_jobs/live.js";
import { readZoneInfo, zonePlanOf } from "../../src/sections/shared/zone-info.js";
import { loadRecorded, recordedNames, serveRecorded, startReplay, type ReplayServer } from "../helpers/replay.js";

const Z = "0da42c8d2132a9ddaf714f9e7c920711";
const ACCOUNT = "f037e56e89293a057740de681ac9abbe";

let server: ReplayServer;
let client: CloudflareClient;

beforeAll(async () => {
  server = await startReplay();
  client = createClient({ baseUrl: server.url, auth: { token: "t0ken-for-replay" }, retries: 0 });
});
afterAll(async () => {
  await client.close();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

async function planYaml(yaml: string, env: Record<string, string> = {}): Promise<Plan> {
  const { desired } = parseConfigText(`version: 1\n${yaml}`, "conformance.yaml", env);
  return planZones({ client, desired });
}

function zoneOf(plan: Plan) {
  return plan.zones[0]!;
}

const writes = () => server.requests.filter((r) => r.method !== "GET");

describe("every recorded answer", () => {
  it("is one this suite serves", () => {
    expect(recordedNames()).toEqual([
      "cfgo_logpush_list",
      "cft_custom_hostnames_v4",
      "cft_custom_hostnames_v5",
      "cft_log_fields_ruleset",
      "cft_logpush_account_v5",
      "cft_logpush_zone_filter",
      "cft_managed_entrypoint",
      "cft_page_shield_policies",
      "cft_zone_rulesets_list",
      "cft_zones_list",
    ]);
  });
});

describe("custom hostnames (recorded)", () => {
  it("plans nothing for a default-CA hostname that reads back the CA Cloudflare picked (v5: google)", async () => {
    serveRecorded(server, loadRecorded("cft_custom_hostnames_v5"), `zones/${Z}/custom_hostnames`);
    for (const ca of ['""', null]) {
      const plan = await planYaml(
        `zones:\n  - zone_id: ${Z}\n    custom_hostnames:\n      - hostname: ` +
          `okwyujswsc.terraform.cfapi.net\n${ca ? `        certificate_authority: ${ca}\n` : ""}`,
      );
      expect(zoneOf(plan).errors).toEqual([]);
      expect(zoneOf(plan).changes).toEqual([]);
    }
    expect(writes()).toEqual([]);
  });

  it("sends the whole writable ssl object with only the CA changed, as the Terraform provider does", async () => {
    serveRecorded(server, loadRecorded("cft_custom_hostnames_v5"), `zones/${Z}/custom_hostnames`);
    const plan = await planYaml(
      `zones:\n  - zone_id: ${Z}\n    custom_hostnames:\n      - hostname: okwyujswsc.terraform.cfapi.net\n ` +
        `       certificate_authority: ssl_com\n`,
    );
    const ops = zoneOf(plan).changes.flatMap((c) => c.operations);
    expect(ops).toEqual([
      {
        method: "PATCH",
        path: `zones/${Z}/custom_hostnames/234e5416-89bd-44ae-adea-93082b3a88ed`,
        body: {
          ssl: {
            method: "txt",
            type: "dv",
            bundle_method: "ubiquitous",
            wildcard: false,
            certificate_authority: "ssl_com",
          },
        },
      },
    ]);
  });

  it("never patches a hostname with an uploaded certificate (v4); a CA the file names for it stops the zone", async () => {
    serveRecorded(server, loadRecorded("cft_custom_hostnames_v4"), `zones/${Z}/custom_hostnames`);
    const same = await planYaml(
      `zones:\n  - zone_id: ${Z}\n    custom_hostnames:\n      - hostname: app.example.com\n`,
    );
    expect(zoneOf(same).changes).toEqual([]);
    const other = await planYaml(
      `zones:\n  - zone_id: ${Z}\n    custom_hostnames:\n      - hostname: app.example.com\n        ` +
        `certificate_authority: google\n`,
    );
    expect(zoneOf(other).changes).toEqual([]);
    expect(zoneOf(other).warnings).toEqual([]);
    expect(zoneOf(other).errors.join("\n")).toMatch(
      /app\.example\.com serves an uploaded certificate.*certificate_authority google cannot apply/,
    );
  });
});

describe("custom log fields (recorded)", () => {
  const rulesetPath = `zones/${Z}/rulesets/phases/http_log_custom_fields/entrypoint`;
  const yaml = (req: string) =>
    `zones:\n  - zone_id: ${Z}\n    logs:\n      custom_fields:\n        request_headers: [${req}]\n        ` +
    `response_headers: [response, fields]\n        cookies: [cookie, fields]\n`;

  it("plans nothing for the fields the rule logs, in any order", async () => {
    serveRecorded(server, loadRecorded("cft_log_fields_ruleset"), rulesetPath);
    expect(zoneOf(await planYaml(yaml("request, fields"))).changes).toEqual([]);
    expect(zoneOf(await planYaml(yaml("fields, request"))).changes).toEqual([]);
  });

  it("keeps the live order of the names it keeps, and the rule's ref and description", async () => {
    serveRecorded(server, loadRecorded("cft_log_fields_ruleset"), rulesetPath);
    const plan = await planYaml(yaml("x-new, fields, request"));
    const [op] = zoneOf(plan).changes.flatMap((c) => c.operations);
    expect(op).toMatchObject({
      method: "PATCH",
      path: `zones/${Z}/rulesets/4b9724cc601c443c9dfa506d8b566dc2/rules/17a0d1e23a3444ccbd5e58fc7793649a`,
    });
    expect(op!.body).toEqual({
      action: "log_custom_field",
      expression: "true",
      description: "zone",
      ref: "17a0d1e23a3444ccbd5e58fc7793649a",
      enabled: true,
      action_parameters: {
        request_fields: [{ name: "request" }, { name: "fields" }, { name: "x-new" }],
        response_fields: [{ name: "response" }, { name: "fields" }],
        cookie_fields: [{ name: "cookie" }, { name: "fields" }],
      },
    });
  });
});

describe("Logpush (recorded)", () => {
  const jobsPath = `zones/${Z}/logpush/jobs`;
  const job = (extra: string) =>
    `zones:\n  - zone_id: ${Z}\n    logs:\n      logpush_jobs:\n        - name: example.com\n          ` +
    `dataset: http_requests\n          destination_conf: "s3://mybucket/logs?region=us-west-2"\n${extra}`;
  const legacyOptions =
    "          output_options:\n            field_names: [RayID, ClientIP, EdgeStartTimestamp]\n            " +
    "timestamp_format: rfc3339\n";
  const filter =
    "          filter:\n            where:\n              and:\n                - { key: ClientRequestPath, " +
    "operator: contains, value: /static }\n                - { key: ClientRequestHost, operator: eq, value: " +
    "example.com }\n";

  it("plans nothing for a legacy job whose logpull_options mean the file's output_options (filter too)", async () => {
    serveRecorded(server, loadRecorded("cft_logpush_zone_filter"), jobsPath);
    const plan = await planYaml(job(`          enabled: false\n${legacyOptions}${filter}`));
    expect(zoneOf(plan).errors).toEqual([]);
    expect(zoneOf(plan).changes).toEqual([]);
  });

  it("plans nothing on an SDK-shaped envelope (errors: null, result_info without total_pages)", async () => {
    serveRecorded(server, loadRecorded("cfgo_logpush_list"), jobsPath);
    const plan = await planYaml(job(`          enabled: false\n${legacyOptions}`));
    expect(zoneOf(plan).errors).toEqual([]);
    expect(zoneOf(plan).changes).toEqual([]);
  });

  // The recorded job's filter, as zoneform sends it (compact JSON of the file's filter).
  const filterWire =
    '{"where":{"and":[{"key":"ClientRequestPath","operator":"contains","value":"/static"},' +
    '{"key":"ClientRequestHost","operator":"eq","value":"example.com"}]}}';

  it(
    "enables a job with a PUT of the fields the file manages, the legacy options left out (Cloudflare's " +
      "own example: a PUT keeps what it does not carry)",
    async () => {
      serveRecorded(server, loadRecorded("cft_logpush_zone_filter"), jobsPath);
      const plan = await planYaml(job(`${legacyOptions}${filter}`));
      expect(zoneOf(plan).changes.flatMap((c) => c.operations)).toEqual([
        { method: "PUT", path: `${jobsPath}/1`, body: { name: "example.com", enabled: true, filter: filterWire } },
      ]);
    },
  );

  it('removes a filter with filter "" and never sends filter: null', async () => {
    serveRecorded(server, loadRecorded("cft_logpush_zone_filter"), jobsPath);
    const plan = await planYaml(job(`          enabled: false\n${legacyOptions}`));
    expect(zoneOf(plan).changes.flatMap((c) => c.operations)).toEqual([
      { method: "PUT", path: `${jobsPath}/1`, body: { name: "example.com", enabled: false, filter: "" } },
    ]);
  });

  it("moves a legacy job to output_options only when the file's options differ, and says so", async () => {
    serveRecorded(server, loadRecorded("cft_logpush_zone_filter"), jobsPath);
    const plan = await planYaml(
      job(
        `          enabled: false\n${filter}          output_options:\n            field_names: [RayID, ` +
          `ClientIP, EdgeStartTimestamp, EdgeResponseStatus]\n            timestamp_format: rfc3339\n`,
      ),
    );
    const [change] = zoneOf(plan).changes;
    expect(change!.operations).toEqual([
      {
        method: "PUT",
        path: `${jobsPath}/1`,
        body: {
          name: "example.com",
          enabled: false,
          filter: filterWire,
          output_options: {
            field_names: ["RayID", "ClientIP", "EdgeStartTimestamp", "EdgeResponseStatus"],
            timestamp_format: "rfc3339",
          },
        },
      },
    ]);
    expect(change!.notes!.join("\n")).toMatch(/moves the job from the legacy logpull_options/);
  });

  it('reads account jobs with kind "" and logpull_options as the output_options they mean', async () => {
    const rec = loadRecorded("cft_logpush_account_v5");
    const path = serveRecorded(server, rec);
    const raw = await client.request<unknown[]>("GET", path);
    const jobs = raw.map(normalizeLiveJob);
    expect(jobs.map((j) => [j.id, j.name, j.kind, j.output_options])).toEqual([
      [
        "235658",
        "fmvpbbpnkb",
        "",
        { field_names: ["Event", "EventTimestampMs", "Outcome", "Exceptions", "Logs", "ScriptName"] },
      ],
      [
        "234884",
        "httgotkhpj",
        "",
        { field_names: ["Event", "EventTimestampMs", "Outcome", "Exceptions", "Logs", "ScriptName"] },
      ],
    ]);
  });
});

describe("the managed WAF entry point (recorded)", () => {
  const epPath = `zones/${Z}/rulesets/phases/http_request_firewall_managed/entrypoint`;

  it("plans nothing for a dashboard-made, disabled Cloudflare Managed rule (its id lost in sanitising)", async () => {
    serveRecorded(server, loadRecorded("cft_managed_entrypoint"), epPath);
    const plan = await planYaml(
      `zones:\n  - zone_id: ${Z}\n    waf:\n      cloudflare_managed:\n        enabled: false\n`,
    );
    expect(zoneOf(plan).errors).toEqual([]);
    expect(zoneOf(plan).changes).toEqual([]);
    expect(server.requests.map((r) => r.path)).toEqual([epPath]);
  });

  it("refuses to write a rule the answer gives no id, showing nothing it cannot do", async () => {
    serveRecorded(server, loadRecorded("cft_managed_entrypoint"), epPath);
    const plan = await planYaml(
      `zones:\n  - zone_id: ${Z}\n    waf:\n      cloudflare_managed:\n        enabled: true\n`,
    );
    expect(zoneOf(plan).changes).toEqual([]);
    expect(zoneOf(plan).errors.join("\n")).toMatch(/without an id.*nothing was changed/);
  });

  it(
    "shows the dashboard rule's narrow expression when enabling it over that rule, and keeps its 15 " + "overrides",
    async () => {
      const rec = loadRecorded("cft_managed_entrypoint");
      const body = structuredClone(rec.body) as { result: { rules: Array<Record<string, unknown>> } };
      body.result.rules[0]!.id = "0123456789abcdef0123456789abcdef";
      server.answer("GET", epPath, { status: 200, body });
      const plan = await planYaml(
        `zones:\n  - zone_id: ${Z}\n    waf:\n      cloudflare_managed:\n        enabled: true\n`,
      );
      const [change] = zoneOf(plan).changes;
      expect(change!.fields).toContainEqual({
        field: "expression",
        before: '(http.cookie eq "jb_testing=true")',
        after: "true",
        text: true,
      });
      const patch = change!.operations[0]!;
      expect(patch.path).toBe(
        `zones/${Z}/rulesets/4c971a697dd249939460f4520dcd7184/rules/0123456789abcdef0123456789abcdef`,
      );
      const sent = patch.body as {
        expression: string;
        action_parameters: { version: string; overrides: { rules: unknown[] } };
      };
      expect(sent.expression).toBe("true");
      expect(sent.action_parameters.version).toBe("latest");
      expect(sent.action_parameters.overrides.rules).toHaveLength(15);
      // Owning the expression as it is plans only the enabling.
      const owned = await planYaml(
        `zones:\n  - zone_id: ${Z}\n    waf:\n      cloudflare_managed:\n        enabled: true\n        ` +
          `expression: '(http.cookie eq "jb_testing=true")'\n`,
      );
      expect(zoneOf(owned).changes[0]!.fields).toEqual([{ field: "enabled", before: false, after: true }]);
    },
  );
});

describe("Page Shield policies (recorded)", () => {
  const path = `zones/${Z}/page_shield/policies`;
  const policy = (value: string) =>
    `zones:\n  - zone_id: ${Z}\n    page_shield:\n      policies:\n        - description: test-policy\n     ` +
    `     action: log\n          expression: '(ip.src.country eq "CL")'\n          value: "${value}"\n`;

  it("reads the list with one plain GET (no result_info, no paging) and plans nothing for what it holds", async () => {
    serveRecorded(server, loadRecorded("cft_page_shield_policies"), path);
    const plan = await planYaml(policy("default-src 'none'"));
    expect(zoneOf(plan).changes).toEqual([]);
    expect(server.requests).toEqual([{ method: "GET", path, query: "", body: undefined }]);
  });

  it(
    "updates a policy in place with a PUT of the whole policy (no recorded answer shows whether a PUT " +
      "merges; Terraform and cloudflare-go send all five fields)",
    async () => {
      serveRecorded(server, loadRecorded("cft_page_shield_policies"), path);
      const plan = await planYaml(policy("script-src 'self'"));
      expect(zoneOf(plan).changes.flatMap((c) => c.operations)).toEqual([
        {
          method: "PUT",
          path: `${path}/378f7456a221413a9e756afa6f4dbc5c`,
          body: {
            description: "test-policy",
            action: "log",
            expression: '(ip.src.country eq "CL")',
            value: "script-src 'self'",
            enabled: true,
          },
        },
      ]);
    },
  );
});

describe("zones and rulesets lists (recorded)", () => {
  it("reads the plan from plan.legacy_id, the plan id being a hex id", async () => {
    const rec = loadRecorded("cft_zones_list");
    const zones = rec.body.result as Array<Record<string, unknown>>;
    for (const z of zones) {
      expect(zonePlanOf(z)).toBe("enterprise");
      server.answer("GET", `zones/${String(z.id)}`, {
        status: 200,
        body: { success: true, errors: [], messages: [], result: z },
      });
      expect(await readZoneInfo(client, String(z.id))).toEqual({ name: z.name, plan: "enterprise" });
    }
  });

  it("parses the zone rulesets list (source, no result_info), which planning never needs", async () => {
    const rec = loadRecorded("cft_zone_rulesets_list");
    const path = serveRecorded(server, rec);
    const listed: Array<{ id: string; source?: string }> = [];
    for await (const r of client.paginateCursor<{ id: string; source?: string }>(path)) listed.push(r);
    expect(listed).toHaveLength(6);
    expect(listed.every((r) => r.source === "firewall_managed")).toBe(true);
    server.requests.length = 0;
    // Planning OWASP reads the ruleset by its well-known id, never this list (beside the entry point).
    await planYaml(
      `account_id: ${ACCOUNT}\nzones:\n  - zone_id: ${Z}\n    waf:\n      owasp:\n        enabled: true\n`,
    );
    expect(server.requests.map((r) => r.path).sort()).toEqual([
      `accounts/${ACCOUNT}/rulesets/4814384a9e5d4991b9815dcfc25d2f1f`,
      `zones/${Z}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    ]);
  });
});
