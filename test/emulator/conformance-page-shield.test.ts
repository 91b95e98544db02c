// Every Page Shield answer of the emulator validates against the official OpenAPI schema
// (test/fixtures/openapi/page_shield.json), including generated inventories and error answers. Where
// real answers differ from the 2024 schema, `asSchemaSays` states the difference and undoes it before
// the check, so everything else is still checked.
import { describe, expect, test } from "vitest";
import { expectConformsTo } from "../helpers/openapi.js";
import { useEmulator, ZONE } from "../helpers/cli.js";

const emu = useEmulator();
const ps = `zones/${ZONE.com}/page_shield`;
const T = "/zones/{zone_id}/page_shield";

/**
 * Real answers the 2024 schema does not admit (spec/real-answers.md):
 * - the policies list has no `result_info` (recorded/cft_page_shield_policies.json), the schema
 *   requires one: a consistent one is added;
 * - the settings PUT answers `{enabled, updated_at}` only, the schema requires all four settings: the
 *   two left out are added with their GET values;
 * - a cookie without Max-Age has `max_age_attribute: null`, the schema says integer: the null is dropped.
 */
function asSchemaSays(method: string, template: string, body: any, settings: any): any {
  if (!body?.success) return body;
  if (template === `${T}/policies` && method === "GET") {
    expect(body).not.toHaveProperty("result_info");
    const n = body.result.length;
    return { ...body, result_info: { page: 1, per_page: n, count: n, total_count: n, total_pages: 1 } };
  }
  if (template === T && method === "PUT") {
    expect(Object.keys(body.result).sort()).toEqual(["enabled", "updated_at"]);
    const { use_cloudflare_reporting_endpoint, use_connection_url_path } = settings;
    return { ...body, result: { ...body.result, use_cloudflare_reporting_endpoint, use_connection_url_path } };
  }
  if (template.startsWith(`${T}/cookies`)) {
    const fix = (c: any) => {
      if (c.max_age_attribute !== null) return c;
      const { max_age_attribute: _m, ...rest } = c;
      return rest;
    };
    return { ...body, result: Array.isArray(body.result) ? body.result.map(fix) : fix(body.result) };
  }
  return body;
}

async function check(method: string, path: string, template: string, body?: unknown, status = 200) {
  const r = await emu().call(method, path, body);
  expect(r.status).toBe(status);
  const settings = method === "PUT" && template === T ? (await emu().call("GET", ps)).body.result : undefined;
  expectConformsTo("page_shield.json", template, method, status, asSchemaSays(method, template, r.body, settings));
  return r.body;
}

describe("Page Shield answers conform to the official schema", () => {
  test("settings GET and PUT", async () => {
    await check("GET", ps, T);
    await check("PUT", ps, T, { enabled: true, use_connection_url_path: true });
  });

  test("scripts, connections and cookies lists and single items", async () => {
    for (const [kind, param] of [
      ["scripts", "script_id"],
      ["connections", "connection_id"],
      ["cookies", "cookie_id"],
    ] as const) {
      const list = await check("GET", `${ps}/${kind}?per_page=100`, `${T}/${kind}`);
      expect(list.result.length).toBeGreaterThan(0);
      for (const item of list.result as Array<{ id: string }>) {
        await check("GET", `${ps}/${kind}/${item.id}`, `${T}/${kind}/{${param}}`);
      }
    }
    await check(
      "GET",
      `${ps}/scripts?status=active,infrequent,inactive&exclude_cdn_cgi=false&page=all`,
      `${T}/scripts`,
    );
  });

  test("a large generated inventory, every page", async () => {
    await emu().callAdmin("POST", "inventory", {
      zone_id: ZONE.org,
      scripts: 600,
      connections: 300,
      cookies: 200,
      malicious_ratio: 0.3,
      seed: 3,
    });
    const org = `zones/${ZONE.org}/page_shield`;
    for (const kind of ["scripts", "connections", "cookies"]) {
      const query = kind === "cookies" ? "" : "&status=active,infrequent,inactive&exclude_cdn_cgi=false";
      for (let page = 1; ; page++) {
        const body = await check("GET", `${org}/${kind}?per_page=100&page=${page}${query}`, `${T}/${kind}`);
        if (page >= body.result_info.total_pages) break;
      }
    }
    const scripts = emu()
      .state()
      .zones.find((z) => z.id === ZONE.org)!.scripts;
    for (const s of scripts.filter((x) => x.url_reported_malicious || x.domain_reported_malicious).slice(0, 20)) {
      await check("GET", `${org}/scripts/${s.id}`, `${T}/scripts/{script_id}`);
    }
  });

  test("policies: create, list, get, update, delete", async () => {
    const policy = {
      description: "CSP",
      action: "log",
      expression: "true",
      enabled: false,
      value: "script-src 'self'",
    };
    await check("POST", `${ps}/policies`, `${T}/policies`, { ...policy, enabled: "true" });
    const created = await check("POST", `${ps}/policies`, `${T}/policies`, policy);
    const id = created.result.id as string;
    await check("GET", `${ps}/policies`, `${T}/policies`);
    await check("GET", `${ps}/policies/${id}`, `${T}/policies/{policy_id}`);
    await check("PUT", `${ps}/policies/${id}`, `${T}/policies/{policy_id}`, { enabled: true });
    const deleted = await emu().call("DELETE", `${ps}/policies/${id}`);
    expect(deleted.status).toBe(204);
    expectConformsTo("page_shield.json", `${T}/policies/{policy_id}`, "DELETE", 204, deleted.body);
  });

  test("error answers", async () => {
    await check("PUT", ps, T, { enabled: 1 }, 400);
    await check("POST", `${ps}/policies`, `${T}/policies`, {}, 400);
    await check("GET", `${ps}/policies/${"a".repeat(32)}`, `${T}/policies/{policy_id}`, undefined, 404);
    await check("GET", `${ps}/scripts?per_page=500`, `${T}/scripts`, undefined, 400);
    const unauth = await emu().call("GET", ps, undefined, { headers: {} });
    expectConformsTo("page_shield.json", T, "GET", 400, unauth.body);
  });
});
