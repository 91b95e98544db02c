// Page Shield in the emulator: settings, inventory lists with their filters and paging, CSP policies.
import { describe, expect, test } from "vitest";
import { tokenIdFor } from "../../src/emulator/ids.js";
import { TEST_NOW, TOKEN, useEmulator, ZONE } from "../helpers/cli.js";
import { isMaliciousItem } from "../../src/emulator/areas/page_shield/query.js";

// A clock that moves on a second each time it is read, so that a write shows a later updated_at.
let tick = Date.parse(TEST_NOW);
const emu = useEmulator({ now: () => (tick += 1000) });
const ps = `zones/${ZONE.com}/page_shield`;

describe("settings", () => {
  test("PUT updates only the fields sent, bumps updated_at and answers {enabled, updated_at} only", async () => {
    const before = (await emu().call("GET", ps)).body.result;
    const put = await emu().call("PUT", ps, { enabled: true });
    expect(put.status).toBe(200);
    expect(put.body.result).toEqual({ enabled: true, updated_at: expect.any(String) });
    expect(put.body.result.updated_at > before.updated_at).toBe(true);
    expect((await emu().call("GET", ps)).body.result).toMatchObject({
      enabled: true,
      use_cloudflare_reporting_endpoint: true,
      use_connection_url_path: false,
    });
    await emu().call("PUT", ps, { use_connection_url_path: true });
    const after = (await emu().call("GET", ps)).body.result;
    expect(after).toMatchObject({
      enabled: true,
      use_connection_url_path: true,
      use_cloudflare_reporting_endpoint: true,
    });
  });

  test("rejects unknown fields and wrong types, naming them", async () => {
    const r = await emu().call("PUT", ps, { enabled: "yes", use_service_reporting_endpoint: true });
    expect(r.status).toBe(400);
    const messages = r.body.errors.map((e: { message: string }) => e.message).join("\n");
    expect(messages).toContain("enabled must be a boolean");
    expect(messages).toContain("unknown field use_service_reporting_endpoint");
    expect((await emu().call("GET", ps)).body.result.enabled).toBe(false);
  });

  test("rejects a missing body", async () => {
    expect((await emu().call("PUT", ps)).status).toBe(400);
  });
});

describe("scripts and connections", () => {
  test("list only active items by default, without page_urls or versions", async () => {
    const r = await emu().call("GET", `${ps}/scripts?per_page=100&exclude_cdn_cgi=false`);
    expect(r.body.result).toHaveLength(19);
    expect(r.body.result.every((s: { status: string }) => s.status === "active")).toBe(true);
    expect(r.body.result[0]).not.toHaveProperty("versions");
    expect(r.body.result[0]).not.toHaveProperty("page_urls");
  });

  test("filter by a comma list of statuses and reject an unknown status", async () => {
    const infrequent = await emu().call("GET", `${ps}/scripts?status=infrequent`);
    expect(infrequent.body.result).toHaveLength(1);
    const both = await emu().call("GET", `${ps}/scripts?status=active,infrequent&per_page=100&exclude_cdn_cgi=false`);
    expect(both.body.result_info.total_count).toBe(20);
    expect((await emu().call("GET", `${ps}/scripts?status=gone`)).status).toBe(400);
  });

  test("page with result_info consistent with the total", async () => {
    const all = (await emu().call("GET", `${ps}/scripts?per_page=100`)).body;
    const total = all.result_info.total_count as number;
    const page2 = (await emu().call("GET", `${ps}/scripts?per_page=7&page=2`)).body;
    expect(page2.result_info).toEqual({
      page: 2,
      per_page: 7,
      count: Math.min(7, total - 7),
      total_count: total,
      total_pages: Math.ceil(total / 7),
    });
    expect(page2.result.map((s: { id: string }) => s.id)).toEqual(
      all.result.slice(7, 14).map((s: { id: string }) => s.id),
    );
    const beyond = (await emu().call("GET", `${ps}/scripts?per_page=7&page=99`)).body;
    expect(beyond.result).toEqual([]);
  });

  test.each(["0", "101", "ten"])("rejects per_page=%s", async (perPage) => {
    const r = await emu().call("GET", `${ps}/scripts?per_page=${perPage}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toContain("per_page");
  });

  test("page=all returns every match on one page", async () => {
    const r = await emu().call("GET", `${ps}/connections?page=all`);
    expect(r.body.result_info.total_pages).toBe(1);
    expect(r.body.result.length).toBe(r.body.result_info.total_count);
  });

  test("hosts takes exact names and * wildcards", async () => {
    const exact = (await emu().call("GET", `${ps}/scripts?hosts=www.example.com&per_page=100`)).body.result;
    expect(exact.every((s: { host: string }) => s.host === "www.example.com")).toBe(true);
    const suffix = (await emu().call("GET", `${ps}/scripts?hosts=*example.com&per_page=100`)).body.result_info
      .total_count;
    const all = (await emu().call("GET", `${ps}/scripts?per_page=100`)).body.result_info.total_count;
    expect(suffix).toBe(all);
  });

  test("urls and exclude_urls match parts of the URL", async () => {
    const bad = (await emu().call("GET", `${ps}/scripts?urls=jquery-cdn-update.com`)).body.result;
    expect(bad).toHaveLength(1);
    const rest = (await emu().call("GET", `${ps}/scripts?exclude_urls=jquery-cdn-update.com&per_page=100`)).body.result;
    expect(rest.some((s: { url: string }) => s.url.includes("jquery-cdn-update.com"))).toBe(false);
  });

  test(
    "prioritize_malicious puts the malicious scripts first (Cloudflare's verdict: any of four scores " +
      "below 10, or a report)",
    async () => {
      const r = (await emu().call("GET", `${ps}/scripts?prioritize_malicious=true&per_page=100`)).body.result;
      expect(r.slice(0, 4).every(isMaliciousItem)).toBe(true);
      expect(r.slice(4).some(isMaliciousItem)).toBe(false);
    },
  );

  test("order_by and direction sort by the timestamp", async () => {
    const r = (await emu().call("GET", `${ps}/scripts?order_by=first_seen_at&direction=asc&per_page=100`)).body.result;
    const times = r.map((s: { first_seen_at: string }) => s.first_seen_at);
    expect(times).toEqual([...times].sort());
    expect((await emu().call("GET", `${ps}/scripts?order_by=size`)).status).toBe(400);
  });

  test("one script comes with page_urls and versions; categories stay separate", async () => {
    const list = (await emu().call("GET", `${ps}/scripts?urls=jquery-cdn-update.com`)).body.result;
    const one = (await emu().call("GET", `${ps}/scripts/${list[0].id}`)).body.result;
    expect(one.page_urls.length).toBeGreaterThan(0);
    expect(one.versions[0]).toMatchObject({ js_integrity_score: one.js_integrity_score, hash: one.hash });
    expect(one).toMatchObject({
      domain_reported_malicious: true,
      malicious_domain_categories: ["Malware"],
      malicious_url_categories: [],
    });
  });

  test("a missing script or connection is 404", async () => {
    expect((await emu().call("GET", `${ps}/scripts/${"a".repeat(32)}`)).status).toBe(404);
    expect((await emu().call("GET", `${ps}/connections/${"a".repeat(32)}`)).status).toBe(404);
  });

  test("a connection can be fetched by id", async () => {
    const list = (await emu().call("GET", `${ps}/connections`)).body.result;
    const one = await emu().call("GET", `${ps}/connections/${list[0].id}`);
    expect(one.body.result).toMatchObject({ id: list[0].id, url: list[0].url });
  });
});

describe("cookies", () => {
  test("filter by their attributes", async () => {
    const insecure = (await emu().call("GET", `${ps}/cookies?secure=false&per_page=100`)).body.result;
    expect(insecure.length).toBeGreaterThanOrEqual(2);
    expect(insecure.every((c: { secure_attribute: boolean }) => c.secure_attribute === false)).toBe(true);
    const named = (await emu().call("GET", `${ps}/cookies?name=_g*`)).body.result;
    expect(named.map((c: { name: string }) => c.name).sort()).toEqual(["_ga", "_gid"]);
    expect((await emu().call("GET", `${ps}/cookies?same_site=sometimes`)).status).toBe(400);
  });

  test("a cookie can be fetched by id", async () => {
    const list = (await emu().call("GET", `${ps}/cookies`)).body.result;
    expect((await emu().call("GET", `${ps}/cookies/${list[0].id}`)).body.result.name).toBe(list[0].name);
  });
});

describe("policies", () => {
  const policy = {
    description: "Checkout allow-list",
    action: "allow",
    expression: 'http.request.uri.path contains "/checkout"',
    enabled: true,
    value: "script-src 'self' https://js.stripe.com",
  };

  test("create, read, update (a PUT replaces the policy whole), list and delete", async () => {
    const created = await emu().call("POST", `${ps}/policies`, policy);
    expect(created.status).toBe(200);
    const id = created.body.result.id as string;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(created.body.result).toEqual({ id, ...policy });

    // The whole policy: every field as sent.
    const updated = await emu().call("PUT", `${ps}/policies/${id}`, { ...policy, action: "log" });
    expect(updated.body.result).toEqual({ id, ...policy, action: "log" });
    expect((await emu().call("GET", `${ps}/policies/${id}`)).body.result.action).toBe("log");
    // Part of it: what the PUT leaves out is reset, as a PUT that replaces would (real-answers.md: no
    // recorded answer shows a merge).
    const partial = await emu().call("PUT", `${ps}/policies/${id}`, { value: "script-src 'none'", enabled: "true" });
    expect(partial.status).toBe(200);
    expect(partial.body.result).toEqual({
      id,
      description: "",
      action: "log",
      expression: "",
      enabled: true,
      value: "script-src 'none'",
    });
    expect((await emu().call("GET", `${ps}/policies/${id}`)).body.result).toEqual(partial.body.result);
    expect((await emu().call("PUT", `${ps}/policies/${id}`, { action: "deny" })).status).toBe(400);
    expect((await emu().call("PUT", `${ps}/policies/${id}`, { description: "" })).status).toBe(400);

    const list = (await emu().call("GET", `${ps}/policies`)).body;
    expect(list.result).toHaveLength(1);
    expect(list).not.toHaveProperty("result_info");

    const deleted = await fetch(`${emu().url}/${ps}/policies/${id}`, {
      method: "DELETE",
      headers: { authorization: "Bearer emulator-token" },
    });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect((await emu().call("GET", `${ps}/policies/${id}`)).status).toBe(404);
    expect((await emu().call("DELETE", `${ps}/policies/${id}`)).status).toBe(404);
  });

  test("create lists every missing or wrong field at once", async () => {
    const r = await emu().call("POST", `${ps}/policies`, { action: "block", enabled: "yes" });
    expect(r.status).toBe(400);
    const messages = r.body.errors.map((e: { message: string }) => e.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        "description is required",
        "expression is required",
        "value is required",
        expect.stringContaining("'block' is not a valid value for action"),
        expect.stringContaining("enabled must be a boolean"),
      ]),
    );
    expect((await emu().call("GET", `${ps}/policies`)).body.result).toEqual([]);
  });

  test("accepts the 2026 action add_reporting_directives", async () => {
    const r = await emu().call("POST", `${ps}/policies`, { ...policy, action: "add_reporting_directives" });
    expect(r.status).toBe(200);
  });

  test("a malformed policy id is a routing error", async () => {
    expect((await emu().call("GET", `${ps}/policies/xyz`)).status).toBe(400);
  });

  test("the request log records each call with its body", async () => {
    await emu().call("POST", `${ps}/policies`, policy);
    const log = await emu().requests();
    expect(log).toEqual([
      {
        method: "POST",
        path: `/client/v4/${ps}/policies`,
        query: {},
        status: 200,
        body: policy,
        credential: `token ${tokenIdFor(TOKEN)}`,
      },
    ]);
  });
});
