// The emulator answers like the recorded real API (spec/real-answers.md, spec/recorded/): custom
// hostname ids and CAs, zone plans, ruleset sources / versions / refs, Logpush jobs as set, and the
// Page Shield shapes. One test per behaviour; conformance to the OpenAPI schemas is checked elsewhere.
import { describe, expect, test } from "vitest";
import { defaultState } from "../../src/emulator/index.js";
import { useEmulator, ZONE } from "../helpers/cli.js";

const emu = useEmulator();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX32 = /^[0-9a-f]{32}$/;
const CH = `zones/${ZONE.com}/custom_hostnames`;
const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";

async function hostname(name: string) {
  return (await emu().call("GET", `${CH}?hostname=${name}`)).body.result[0];
}

describe("custom hostnames", () => {
  test("hostname ids and ssl ids are UUIDs, the same on every start", async () => {
    for (const zone of Object.values(ZONE)) {
      for (const h of (await emu().call("GET", `zones/${zone}/custom_hostnames`)).body.result) {
        expect(h.id).toMatch(UUID);
        expect(h.ssl.id).toMatch(UUID);
      }
    }
    const ids = (s: ReturnType<typeof defaultState>) => s.zones.flatMap((z) => z.custom_hostnames.map((h) => h.id));
    expect(ids(defaultState())).toEqual(ids(defaultState()));
  });

  test('a hostname made with the default CA reads back the concrete CA, never "" or absent', async () => {
    for (const zone of Object.values(ZONE)) {
      for (const h of (await emu().call("GET", `zones/${zone}/custom_hostnames`)).body.result) {
        expect(["digicert", "google", "lets_encrypt", "ssl_com"]).toContain(h.ssl.certificate_authority);
      }
    }
    expect((await hostname("api.umbrella-com.example")).ssl.certificate_authority).toBe("google");
  });

  test("a PATCH with the default CA stores and answers the CA the service picked", async () => {
    const h = await hostname("portal.initech-com.example");
    const r = await emu().call("PATCH", `${CH}/${h.id}`, {
      ssl: { certificate_authority: "", method: "http", type: "dv" },
    });
    expect(r.status).toBe(200);
    expect(r.body.result.ssl.certificate_authority).toBe("google");
    expect((await emu().call("GET", `${CH}/${h.id}`)).body.result.ssl.certificate_authority).toBe("google");
    // "" on a hostname already on the picked CA is no change: method and type are not needed.
    expect((await emu().call("PATCH", `${CH}/${h.id}`, { ssl: { certificate_authority: "" } })).status).toBe(200);
  });

  test("the ssl object read back is the full one of the recordings", async () => {
    const h = await hostname("app.globex-com.example");
    expect(h.ssl).toMatchObject({
      id: expect.stringMatching(UUID),
      type: "dv",
      method: "txt",
      status: "active",
      certificate_authority: "google",
      bundle_method: "ubiquitous",
      wildcard: false,
      settings: expect.any(Object),
      txt_name: "_acme-challenge.app.globex-com.example",
      txt_value: expect.any(String),
      dcv_delegation_records: [
        {
          cname: "_acme-challenge.app.globex-com.example",
          cname_target: expect.stringMatching(/\.dcv\.cloudflare\.com$/),
        },
      ],
      validation_records: expect.any(Array),
    });
    const http = await hostname("shop.acme-com.example");
    expect(http.ssl).toMatchObject({
      method: "http",
      http_url: expect.stringMatching(/^http:\/\/shop\.acme-com\.example\//),
      http_body: expect.any(String),
    });
  });

  test("the seed holds a hostname with an uploaded certificate whose CA cannot change (400, code 1400)", async () => {
    const h = await hostname("secure.hooli-com.example");
    expect(h.ssl).toMatchObject({
      custom_certificate: expect.stringContaining("-----BEGIN CERTIFICATE-----"),
      custom_csr_id: expect.stringMatching(UUID),
      certificate_authority: "digicert",
    });
    const refused = await emu().call("PATCH", `${CH}/${h.id}`, {
      ssl: { certificate_authority: "google", method: "http", type: "dv" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].code).toBe(1400);
    expect((await emu().call("GET", `${CH}/${h.id}`)).body.result.ssl).toEqual(h.ssl);
    // Anything but the CA may still change; re-sending its own CA is no change.
    const ok = await emu().call("PATCH", `${CH}/${h.id}`, {
      ssl: { certificate_authority: "digicert", settings: { min_tls_version: "1.3" } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.result.ssl).toMatchObject({
      status: "active",
      settings: { min_tls_version: "1.3" },
      custom_certificate: h.ssl.custom_certificate,
    });
  });

  test("a PATCH ssl object replaces the fields it carries (settings whole) and keeps the others", async () => {
    const h = await hostname("shop.acme-com.example");
    const r = await emu().call("PATCH", `${CH}/${h.id}`, { ssl: { settings: { http2: "off" } } });
    expect(r.status).toBe(200);
    const after = (await emu().call("GET", `${CH}/${h.id}`)).body.result.ssl;
    expect(after.settings).toEqual({ http2: "off" });
    const { settings: _a, ...rest } = after;
    const { settings: _b, ...before } = h.ssl;
    expect(rest).toEqual(before);
  });

  test("a CA change still needs method and type (1434)", async () => {
    const h = await hostname("shop.acme-com.example");
    const r = await emu().call("PATCH", `${CH}/${h.id}`, { ssl: { certificate_authority: "" } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].code).toBe(1434);
  });
});

describe("zones", () => {
  test("plan is an object: a 32-hex id, the legacy name and the plan's label", async () => {
    const expected = {
      [ZONE.com]: ["enterprise", "Enterprise Website"],
      [ZONE.net]: ["business", "Business Website"],
      [ZONE.org]: ["pro", "Pro Website"],
      [ZONE.dev]: ["free", "Free Website"],
    };
    for (const [zone, [legacy, name]] of Object.entries(expected)) {
      const plan = (await emu().call("GET", `zones/${zone}`)).body.result.plan;
      expect(plan).toMatchObject({
        id: expect.stringMatching(HEX32),
        legacy_id: legacy,
        name,
        is_subscribed: true,
        currency: "USD",
      });
    }
    expect((await emu().call("GET", `zones/${ZONE.com}`)).body.result.plan.id).toBe("94f3b7b768b0458b56d2cac4fe5ec0f9");
  });

  test("GET zones lists every zone with its plan object and result_info", async () => {
    const r = await emu().call("GET", "zones");
    expect(r.status).toBe(200);
    expect(r.body.result.map((z: { id: string }) => z.id)).toEqual(Object.values(ZONE));
    expect(r.body.result_info).toMatchObject({ page: 1, count: 4, total_count: 4 });
    expect(
      (await emu().call("GET", "zones?name=example.org")).body.result.map(
        (z: { plan: { legacy_id: string } }) => z.plan.legacy_id,
      ),
    ).toEqual(["pro"]);
  });

  test("the admin API takes a legacy plan name and the zone answers the plan object", async () => {
    const id = (await emu().callAdmin("POST", "zones", { name: "shop.test", plan: "business" })).body.id;
    const plan = (await emu().call("GET", `zones/${id}`)).body.result.plan;
    expect(plan).toMatchObject({ legacy_id: "business", name: "Business Website", id: expect.stringMatching(HEX32) });
    expect(plan.id).not.toBe("business");
  });
});

describe("rulesets", () => {
  const Z = `zones/${ZONE.com}/rulesets`;
  const entry = `${Z}/phases/http_request_firewall_managed/entrypoint`;

  test("an entry point made through the API has no source; the list shows source where a ruleset has one", async () => {
    const put = await emu().call("PUT", entry, { rules: [] });
    expect(put.status).toBe(200);
    expect(put.body.result).not.toHaveProperty("source");
    const list = (await emu().call("GET", Z)).body.result as Array<{ id: string; kind: string; source?: string }>;
    expect(list.find((r) => r.id === put.body.result.id)).not.toHaveProperty("source");
    for (const managed of list.filter((r) => r.kind === "managed")) expect(managed.source).toBe("firewall_managed");
  });

  test('an execute rule written without a version reads back version "latest"; a given version is kept', async () => {
    const r = await emu().call("PUT", entry, {
      rules: [
        { action: "execute", expression: "true", action_parameters: { id: OWASP } },
        {
          action: "execute",
          expression: "true",
          action_parameters: { id: "efb7b8c949ac4650a09736fc376e9aee", version: "93" },
        },
      ],
    });
    expect(r.status).toBe(200);
    expect(
      r.body.result.rules.map((x: { action_parameters: { version: string } }) => x.action_parameters.version),
    ).toEqual(["latest", "93"]);
    // Re-sending the rule without a version is no change.
    const [first] = r.body.result.rules;
    const again = await emu().call("PATCH", `${Z}/${r.body.result.id}/rules/${first.id}`, {
      action: "execute",
      expression: "true",
      action_parameters: { id: OWASP },
    });
    expect(again.body.result.rules[0].version).toBe("1");
  });

  test("rule ids are 32 hex; a rule without a ref reads back its id as ref, one with a ref keeps it", async () => {
    const r = await emu().call("POST", Z, {
      name: "custom",
      kind: "zone",
      phase: "http_request_firewall_custom",
      rules: [
        { action: "block", expression: "true" },
        { action: "log", expression: "true", ref: "mine" },
      ],
    });
    const [a, b] = r.body.result.rules;
    expect(a.id).toMatch(HEX32);
    expect(a.ref).toBe(a.id);
    expect(b.id).toMatch(HEX32);
    expect(b.ref).toBe("mine");
  });

  test("the zone list answers no result_info unless cursor paging is asked for", async () => {
    const bare = await emu().call("GET", Z);
    expect(bare.body).not.toHaveProperty("result_info");
    expect(bare.body.result.length).toBeGreaterThan(0);
    expect((await emu().call("GET", `${Z}?per_page=1`)).body.result_info).toMatchObject({ per_page: 1, count: 1 });
  });
});

describe("logpush", () => {
  const L = `zones/${ZONE.com}/logpush/jobs`;
  const HTTPS = "https://collector.example.com/logs";
  const create = (body: Record<string, unknown>) =>
    emu().call("POST", L, { dataset: "http_requests", destination_conf: HTTPS, ...body });

  test("a job holds only the output_options that were set, on create and on read", async () => {
    const options = { field_names: ["RayID", "ClientIP"], timestamp_format: "rfc3339" };
    const job = (await create({ output_options: options })).body.result;
    expect(job.output_options).toEqual(options);
    expect((await emu().call("GET", `${L}/${job.id}`)).body.result.output_options).toEqual(options);
  });

  test('a job configured with logpull_options has no output_options and kind ""', async () => {
    const logpull = "fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339";
    const job = (await create({ logpull_options: logpull })).body.result;
    expect(job).toMatchObject({ logpull_options: logpull, kind: "" });
    expect(job).not.toHaveProperty("output_options");
  });

  test("a job created without a name reads back name null, also in a PUT answer", async () => {
    const job = (await create({})).body.result;
    expect(job.name).toBeNull();
    expect((await emu().call("PUT", `${L}/${job.id}`, { enabled: true })).body.result.name).toBeNull();
  });

  test("a PUT of {enabled: true} alone keeps every other field", async () => {
    const filter = JSON.stringify({
      where: { and: [{ key: "ClientRequestHost", operator: "eq", value: "example.com" }] },
    });
    const job = (await create({ name: "keep", filter, output_options: { field_names: ["RayID"], sample_rate: 0.5 } }))
      .body.result;
    const put = await emu().call("PUT", `${L}/${job.id}`, { enabled: true });
    expect(put.body.result).toEqual({ ...job, enabled: true });
  });

  test('"filter": null is refused with 400 on POST and PUT; "" removes a filter', async () => {
    expect((await create({ filter: null })).status).toBe(400);
    const filter = JSON.stringify({ where: { and: [{ key: "ClientIP", operator: "eq", value: "192.0.2.1" }] } });
    const job = (await create({ filter })).body.result;
    expect(job.filter).toBe(filter);
    const bad = await emu().call("PUT", `${L}/${job.id}`, { filter: null });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].source.pointer).toBe("/filter");
    const removed = await emu().call("PUT", `${L}/${job.id}`, { filter: "" });
    expect(removed.status).toBe(200);
    expect(removed.body.result).not.toHaveProperty("filter");
  });

  test("DELETE answers result {}", async () => {
    const job = (await create({})).body.result;
    const del = await emu().call("DELETE", `${L}/${job.id}`);
    expect(del.body).toMatchObject({ success: true, result: {} });
    expect(del.body.result).toEqual({});
  });

  test('the jobs list has no result_info; plain jobs have kind ""', async () => {
    await create({});
    const list = await emu().call("GET", L);
    expect(list.body).not.toHaveProperty("result_info");
    expect(list.body.result[0].kind).toBe("");
  });

  test("account jobs are read at accounts/{id}/logpush/jobs", async () => {
    const account = emu().state().account_id;
    expect((await emu().call("GET", `accounts/${account}/logpush/jobs`)).body.result).toEqual([]);
    expect((await emu().call("GET", `accounts/${"e".repeat(32)}/logpush/jobs`)).status).toBe(403);
  });
});

describe("page shield", () => {
  const ps = `zones/${ZONE.com}/page_shield`;
  const policy = { description: "CSP", action: "log", expression: "true", value: "script-src 'self'" };

  test("the policies list answers no result_info", async () => {
    await emu().call("POST", `${ps}/policies`, { ...policy, enabled: true });
    const list = await emu().call("GET", `${ps}/policies`);
    expect(list.body.result).toHaveLength(1);
    expect(list.body).not.toHaveProperty("result_info");
  });

  test('a policy created with "enabled": "true" (the docs\' example) is stored enabled', async () => {
    const r = await emu().call("POST", `${ps}/policies`, { ...policy, enabled: "true" });
    expect(r.status).toBe(200);
    expect(r.body.result.enabled).toBe(true);
    expect((await emu().call("GET", `${ps}/policies/${r.body.result.id}`)).body.result.enabled).toBe(true);
  });

  test("the settings PUT answers {enabled, updated_at} only", async () => {
    const r = await emu().call("PUT", ps, { enabled: true });
    expect(Object.keys(r.body.result).sort()).toEqual(["enabled", "updated_at"]);
  });

  test(
    "scripts carry the 2026 scores and malicious_url_categories, connections " +
      "malicious_domain_categories, cookies max_age_attribute",
    async () => {
      const scripts = (await emu().call("GET", `${ps}/scripts?per_page=100`)).body.result;
      for (const s of scripts) {
        for (const k of ["malware_score", "cryptomining_score", "magecart_score"])
          expect(Number.isInteger(s[k])).toBe(true);
        expect(Array.isArray(s.malicious_url_categories)).toBe(true);
      }
      const magecart = scripts.find((s: { malicious_url_categories: string[] }) =>
        s.malicious_url_categories.includes("Magecart"),
      );
      expect(magecart.magecart_score).toBeLessThan(50);
      for (const c of (await emu().call("GET", `${ps}/connections?per_page=100`)).body.result)
        expect(Array.isArray(c.malicious_domain_categories)).toBe(true);
      const cookies = (await emu().call("GET", `${ps}/cookies?per_page=100`)).body.result;
      expect(cookies.every((c: object) => "max_age_attribute" in c)).toBe(true);
      expect(cookies.some((c: { max_age_attribute: unknown }) => c.max_age_attribute === null)).toBe(true);
    },
  );
});
