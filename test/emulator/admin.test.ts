// The admin API: state, reset, zones, inventory generation, faults, latency, rate limit, request log,
// ownership tokens.
import { describe, expect, test } from "vitest";
import { generateInventory, zoneIdFor } from "../../src/emulator/index.js";
import { isMaliciousItem } from "../../src/emulator/areas/page_shield/query.js";
import { ownershipToken } from "../../src/emulator/areas/logpush_jobs/ownership.js";
import { tokenIdFor } from "../../src/emulator/ids.js";
import { TOKEN, useEmulator, ZONE } from "../helpers/cli.js";

const emu = useEmulator();
const settings = `zones/${ZONE.com}/page_shield`;

describe("state", () => {
  test("GET returns the whole state with zones and account", async () => {
    const r = await emu().callAdmin("GET", "state");
    expect(r.status).toBe(200);
    expect(r.body.account_id).toBe("0123456789abcdef0123456789abcdef");
    expect(r.body.zones.map((z: { id: string; name: string; plan: string }) => [z.id, z.name, z.plan])).toContainEqual([
      ZONE.com,
      "example.com",
      "enterprise",
    ]);
  });

  test("PUT replaces it, filling in what a short document leaves out", async () => {
    const r = await emu().callAdmin("PUT", "state", { zones: [{ name: "solo.test", plan: "pro" }] });
    expect(r.status).toBe(200);
    const id = zoneIdFor("solo.test");
    expect((await emu().call("GET", `zones/${id}/page_shield`)).body.result.enabled).toBe(false);
    expect((await emu().call("GET", settings)).status).toBe(404);
    expect(emu().state().credentials.tokens).toEqual(["emulator-token"]);
  });

  test("PUT refuses an invalid document and keeps the old state", async () => {
    const r = await emu().callAdmin("PUT", "state", { zones: [{ name: "x.test", plan: "platinum" }] });
    expect(r.status).toBe(400);
    expect(r.body.problems[0]).toContain("plan");
    expect((await emu().call("GET", settings)).status).toBe(200);
  });

  test("reset restores the seed and clears faults, latency, log and rate counters", async () => {
    await emu().call("PUT", settings, { enabled: true });
    await emu().callAdmin("POST", "faults", { path: "page_shield$", status: 500 });
    // The longest latency (10 minutes): left in force, it would hold the GET below past the test's
    // timeout (no wall-clock assert).
    await emu().callAdmin("PUT", "latency", { ms: 600_000 });
    await emu().callAdmin("PUT", "rate-limit", { requests: 1, seconds: 60 });
    expect((await emu().callAdmin("POST", "reset")).status).toBe(200);
    const r = await emu().call("GET", settings);
    expect(r.status).toBe(200);
    expect(r.body.result.enabled).toBe(false);
    expect(r.headers.get("x-ratelimit-limit")).toBe("1200");
    expect(await emu().requests()).toHaveLength(1);
  });
});

describe("zones", () => {
  test("adds an empty zone whose id is md5 of its name", async () => {
    const r = await emu().callAdmin("POST", "zones", {
      name: "shop.test",
      plan: "business",
      waf_migration: "previous",
    });
    expect(r.body).toEqual({ id: zoneIdFor("shop.test") });
    const zone = emu()
      .state()
      .zones.find((z) => z.id === r.body.id)!;
    expect(zone).toMatchObject({ name: "shop.test", plan: "business", custom_hostnames: [], scripts: [], cookies: [] });
    expect(zone.waf_migration.mode).toBe("previous");
    expect((await emu().call("GET", `zones/${r.body.id}/page_shield/scripts`)).body.result).toEqual([]);
  });

  test("409 for a zone that exists, 400 for a bad plan", async () => {
    expect((await emu().callAdmin("POST", "zones", { name: "example.com", plan: "free" })).status).toBe(409);
    expect((await emu().callAdmin("POST", "zones", { name: "a.test", plan: "gold" })).status).toBe(400);
  });
});

describe("inventory", () => {
  test("generates the asked inventory, the same for the same input", async () => {
    const body = { zone_id: ZONE.net, scripts: 300, connections: 40, cookies: 25, malicious_ratio: 0.2, seed: 7 };
    expect((await emu().callAdmin("POST", "inventory", body)).body).toEqual({
      scripts: 300,
      connections: 40,
      cookies: 25,
    });
    const first = JSON.stringify(
      emu()
        .state()
        .zones.find((z) => z.id === ZONE.net)!.scripts,
    );
    await emu().callAdmin("POST", "inventory", body);
    expect(
      JSON.stringify(
        emu()
          .state()
          .zones.find((z) => z.id === ZONE.net)!.scripts,
      ),
    ).toBe(first);
    const list = await emu().call(
      "GET",
      `zones/${ZONE.net}/page_shield/scripts?status=active,infrequent,inactive&exclude_cdn_cgi=false`,
    );
    expect(list.body.result_info.total_count).toBe(300);
    expect((await emu().callAdmin("POST", "inventory", { ...body, zone_id: "0".repeat(32) })).status).toBe(404);
  });

  test(
    "spreads scores, keeps ~malicious_ratio malicious by Cloudflare's verdict, ~5 % infrequent, separate " +
      "categories",
    () => {
      // 10 000 scripts (deterministic: seed 0) hold the ratios within the bounds by several standard deviations.
      const n = 10_000;
      const inv = generateInventory({
        zoneId: ZONE.com,
        zoneName: "example.com",
        scripts: n,
        connections: 0,
        cookies: 0,
        maliciousRatio: 0.1,
        now: Date.parse("2026-01-01T00:00:00Z"),
      });
      const scores = inv.scripts.map((s) => s.js_integrity_score as number);
      expect(Math.min(...scores)).toBe(1);
      expect(Math.max(...scores)).toBe(99);
      const malicious = inv.scripts.filter(isMaliciousItem).length / scores.length;
      expect(malicious).toBeGreaterThan(0.08);
      expect(malicious).toBeLessThan(0.12);
      // Each malicious script has a threat score below 10: the verdict does not rest on js_integrity_score
      // alone, and many malicious ones score 10–49 there (not malicious by that score on its own).
      const threat = (s: Record<string, unknown>) =>
        ["magecart_score", "malware_score", "cryptomining_score"].filter((k) => (s[k] as number) < 10);
      for (const s of inv.scripts)
        expect(threat(s).length > 0, String(s.id)).toBe((s.js_integrity_score as number) < 50);
      expect(
        inv.scripts.filter((s) => (s.js_integrity_score as number) >= 10 && (s.js_integrity_score as number) < 50)
          .length,
      ).toBeGreaterThan(500);
      for (const k of ["magecart_score", "cryptomining_score"])
        expect(
          inv.scripts.some((s) => threat(s).includes(k)),
          k,
        ).toBe(true);
      const infrequent = inv.scripts.filter((s) => s.status === "infrequent").length / inv.scripts.length;
      expect(infrequent).toBeGreaterThan(0.04);
      expect(infrequent).toBeLessThan(0.06);
      for (const s of inv.scripts) {
        // Domain categories only when domain-reported; URL categories always ([] when not reported).
        expect("malicious_domain_categories" in s).toBe(s.domain_reported_malicious === true);
        expect((s.malicious_url_categories as string[]).length > 0).toBe(s.url_reported_malicious === true);
        for (const k of ["malware_score", "cryptomining_score", "magecart_score"]) {
          expect(s[k]).toBeGreaterThanOrEqual(1);
          expect(s[k]).toBeLessThanOrEqual(99);
        }
      }
      expect(new Set(inv.scripts.map((s) => s.id)).size).toBe(n);
    },
  );
});

describe("faults", () => {
  test("answer the given status and code `count` times, then stop", async () => {
    const f = await emu().callAdmin("POST", "faults", {
      method: "GET",
      path: "page_shield$",
      status: 503,
      code: 10013,
      retry_after: 2,
      count: 2,
    });
    expect(f.body.id).toEqual(expect.any(String));
    const first = await emu().call("GET", settings);
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ success: false, result: null, errors: [{ code: 10013 }] });
    expect(first.headers.get("retry-after")).toBe("2");
    expect((await emu().call("GET", settings)).status).toBe(503);
    expect((await emu().call("GET", settings)).status).toBe(200);
    expect((await emu().call("GET", `${settings}/policies`)).status).toBe(200);
  });

  test("a 429 fault carries code 971 and Retry-After", async () => {
    await emu().callAdmin("POST", "faults", { status: 429, count: 1 });
    const r = await emu().call("GET", settings);
    expect(r.status).toBe(429);
    expect(r.body.errors[0].code).toBe(971);
    expect(r.headers.get("retry-after")).toBe("1");
  });

  test("reset destroys the connection and is logged with status 0", async () => {
    await emu().callAdmin("POST", "faults", { path: "page_shield", reset: true, count: 1 });
    await expect(emu().call("GET", settings)).rejects.toThrow();
    expect((await emu().requests())[0]).toMatchObject({ method: "GET", status: 0 });
    expect((await emu().call("GET", settings)).status).toBe(200);
  });

  test("after: true makes the write and then fails (an ambiguous outcome)", async () => {
    await emu().callAdmin("POST", "faults", { method: "POST", path: "policies$", status: 502, after: true, count: 1 });
    const policy = { description: "d", action: "log", expression: "true", enabled: true, value: "script-src 'self'" };
    const r = await emu().call("POST", `${settings}/policies`, policy);
    expect(r.status).toBe(502);
    expect((await emu().call("GET", `${settings}/policies`)).body.result).toHaveLength(1);
  });

  test("after + reset makes the write and drops the connection", async () => {
    await emu().callAdmin("POST", "faults", { method: "PUT", reset: true, after: true, count: 1 });
    await expect(emu().call("PUT", settings, { enabled: true })).rejects.toThrow();
    expect((await emu().call("GET", settings)).body.result.enabled).toBe(true);
  });

  test("probability with a seed fires the same way every time", async () => {
    const pattern = async () => {
      await emu().callAdmin("DELETE", "faults");
      await emu().callAdmin("POST", "faults", { status: 500, probability: 0.5, seed: 42 });
      const out: number[] = [];
      for (let i = 0; i < 12; i++) out.push((await emu().call("GET", settings)).status);
      return out;
    };
    const a = await pattern();
    expect(a).toContain(500);
    expect(a).toContain(200);
    expect(await pattern()).toEqual(a);
  });

  test("delay_ms alone slows the answer down", async () => {
    await emu().callAdmin("POST", "faults", { delay_ms: 200, count: 1 });
    const t0 = Date.now();
    expect((await emu().call("GET", settings)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });

  test("DELETE clears them; bad specs are refused", async () => {
    await emu().callAdmin("POST", "faults", { status: 500 });
    await emu().callAdmin("DELETE", "faults");
    expect((await emu().call("GET", settings)).status).toBe(200);
    expect((await emu().callAdmin("POST", "faults", { path: "(", status: 500 })).status).toBe(400);
    expect((await emu().callAdmin("POST", "faults", { count: 1 })).status).toBe(400);
    expect((await emu().callAdmin("POST", "faults", { status: 500, probability: 2 })).status).toBe(400);
  });
});

describe("latency, rate limit, log, ownership", () => {
  test("PUT latency delays every API answer but not the admin API", async () => {
    await emu().callAdmin("PUT", "latency", { ms: 200 });
    const t0 = Date.now();
    await emu().call("GET", settings);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(195);
    // The admin API is not delayed: with the longest latency (10 minutes) in force it still answers,
    // well within the test's timeout (no wall-clock assert).
    await emu().callAdmin("PUT", "latency", { ms: 600_000 });
    expect((await emu().callAdmin("GET", "requests")).status).toBe(200);
  });

  test("PUT rate-limit changes the limit and the headers", async () => {
    expect((await emu().callAdmin("PUT", "rate-limit", { requests: 10, seconds: 20 })).status).toBe(200);
    const r = await emu().call("GET", settings);
    expect(r.headers.get("ratelimit-policy")).toBe('"default";q=10;w=20');
    expect(r.headers.get("x-ratelimit-remaining")).toBe("9");
  });

  test("the request log keeps API calls oldest first with query and status, never admin calls", async () => {
    await emu().call("GET", `${settings}/scripts?per_page=5&page=2`);
    await emu().call("GET", `zones/bad/page_shield`);
    await emu().callAdmin("GET", "state");
    const log = await emu().requests();
    // Who sent each call: a token by its id (md5), never its value.
    const credential = `token ${tokenIdFor(TOKEN)}`;
    expect(log).toEqual([
      {
        method: "GET",
        path: `/client/v4/${settings}/scripts`,
        query: { per_page: "5", page: "2" },
        status: 200,
        body: null,
        credential,
      },
      { method: "GET", path: "/client/v4/zones/bad/page_shield", query: {}, status: 400, body: null, credential },
    ]);
    expect(JSON.stringify(log)).not.toContain(TOKEN);
    await emu().callAdmin("DELETE", "requests");
    expect(await emu().requests()).toEqual([]);
  });

  test("ownership gives the token the bucket would hold", async () => {
    const destination = "s3://logs/{DATE}?region=us-east-1";
    const r = await emu().callAdmin("GET", `ownership/${ZONE.com}?destination=${encodeURIComponent(destination)}`);
    expect(r.body).toEqual({ token: ownershipToken(ZONE.com, destination) });
    expect((await emu().callAdmin("GET", `ownership/${ZONE.com}`)).status).toBe(400);
  });

  test("an unknown admin endpoint is 404", async () => {
    expect((await emu().callAdmin("GET", "nothing")).status).toBe(404);
  });
});

describe("nonsense admin input is refused with a 400 naming the field, and changes nothing", () => {
  // [what, endpoint, body, the field the error must name]
  const CASES: Array<[string, string, string, unknown, string]> = [
    ["fault count -1", "POST", "faults", { status: 500, count: -1 }, "count"],
    ["fault count 0", "POST", "faults", { status: 500, count: 0 }, "count"],
    ["fault count 1.5", "POST", "faults", { status: 500, count: 1.5 }, "count"],
    ["fault count as a string", "POST", "faults", { status: 500, count: "2" }, "count"],
    ["fault probability -0.1", "POST", "faults", { status: 500, probability: -0.1 }, "probability"],
    ["fault probability 1.01", "POST", "faults", { status: 500, probability: 1.01 }, "probability"],
    ["fault probability as a string", "POST", "faults", { status: 500, probability: "0.5" }, "probability"],
    ["fault delay_ms -5", "POST", "faults", { delay_ms: -5 }, "delay_ms"],
    ["fault delay_ms as a string", "POST", "faults", { delay_ms: "100" }, "delay_ms"],
    ["fault delay_ms of a year", "POST", "faults", { delay_ms: 31_536_000_000 }, "delay_ms"],
    ["fault retry_after -1", "POST", "faults", { status: 429, retry_after: -1 }, "retry_after"],
    ["fault retry_after as a string", "POST", "faults", { status: 429, retry_after: "soon" }, "retry_after"],
    ["fault status 42", "POST", "faults", { status: 42 }, "status"],
    ["fault status 600", "POST", "faults", { status: 600 }, "status"],
    ["fault status 200", "POST", "faults", { status: 200 }, "status"],
    ["fault status as a string", "POST", "faults", { status: "500" }, "status"],
    ["fault path written as a regular expression", "POST", "faults", { status: 500, path: "(" }, "path"],
    ["fault path that is a number", "POST", "faults", { status: 500, path: 5 }, "path"],
    ["fault method FETCH", "POST", "faults", { status: 500, method: "FETCH" }, "method"],
    ["fault method as a number", "POST", "faults", { status: 500, method: 1 }, "method"],
    ["fault reset as a string", "POST", "faults", { reset: "yes" }, "reset"],
    ["fault with an unknown key", "POST", "faults", { status: 500, statuss: 503 }, "statuss"],
    ["latency ms -1", "PUT", "latency", { ms: -1 }, "ms"],
    ["latency ms as a string", "PUT", "latency", { ms: "100" }, "ms"],
    ["latency without ms", "PUT", "latency", {}, "ms"],
    ["latency with an unknown key", "PUT", "latency", { ms: 10, seconds: 1 }, "seconds"],
    ["rate-limit requests 0", "PUT", "rate-limit", { requests: 0, seconds: 60 }, "requests"],
    ["rate-limit seconds -60", "PUT", "rate-limit", { requests: 10, seconds: -60 }, "seconds"],
    ["rate-limit requests 2.5", "PUT", "rate-limit", { requests: 2.5, seconds: 60 }, "requests"],
    ["rate-limit seconds as a string", "PUT", "rate-limit", { requests: 10, seconds: "60" }, "seconds"],
    [
      "inventory scripts -1",
      "POST",
      "inventory",
      { zone_id: ZONE.net, scripts: -1, connections: 0, cookies: 0, malicious_ratio: 0 },
      "scripts",
    ],
    [
      "inventory cookies 1.5",
      "POST",
      "inventory",
      { zone_id: ZONE.net, scripts: 0, connections: 0, cookies: 1.5, malicious_ratio: 0 },
      "cookies",
    ],
    [
      "inventory connections as a string",
      "POST",
      "inventory",
      { zone_id: ZONE.net, scripts: 0, connections: "3", cookies: 0, malicious_ratio: 0 },
      "connections",
    ],
    [
      "inventory of 1 000 001 scripts",
      "POST",
      "inventory",
      { zone_id: ZONE.net, scripts: 1_000_001, connections: 0, cookies: 0, malicious_ratio: 0 },
      "scripts",
    ],
    [
      "inventory of 1e12 cookies",
      "POST",
      "inventory",
      { zone_id: ZONE.net, scripts: 0, connections: 0, cookies: 1e12, malicious_ratio: 0 },
      "cookies",
    ],
    [
      "inventory malicious_ratio 1.5",
      "POST",
      "inventory",
      { zone_id: ZONE.net, scripts: 1, connections: 0, cookies: 0, malicious_ratio: 1.5 },
      "malicious_ratio",
    ],
    [
      "inventory malicious_ratio -0.5",
      "POST",
      "inventory",
      { zone_id: ZONE.net, scripts: 1, connections: 0, cookies: 0, malicious_ratio: -0.5 },
      "malicious_ratio",
    ],
    [
      "inventory with an unknown key",
      "POST",
      "inventory",
      { zone_id: ZONE.net, scripts: 1, connections: 0, cookies: 0, malicious_ratio: 0, pages: 3 },
      "pages",
    ],
    ["zone name with a space", "POST", "zones", { name: "shop test.example", plan: "pro" }, "name"],
    ["zone name of one label", "POST", "zones", { name: "localhost", plan: "pro" }, "name"],
    ["zone name with an empty label", "POST", "zones", { name: "shop..example", plan: "pro" }, "name"],
    ["zone name starting with a hyphen", "POST", "zones", { name: "-shop.example", plan: "pro" }, "name"],
    ["zone name that is an IP address", "POST", "zones", { name: "192.168.1.1", plan: "pro" }, "name"],
    [
      "zone name with a label over 63 characters",
      "POST",
      "zones",
      { name: `${"a".repeat(64)}.example`, plan: "pro" },
      "name",
    ],
    ["zone name as a number", "POST", "zones", { name: 42, plan: "pro" }, "name"],
    ["zone plan gold", "POST", "zones", { name: "gold.example", plan: "gold" }, "plan"],
    ["zone plan as a number", "POST", "zones", { name: "gold.example", plan: 3 }, "plan"],
    [
      "zone waf_migration sideways",
      "POST",
      "zones",
      { name: "gold.example", plan: "pro", waf_migration: "sideways" },
      "waf_migration",
    ],
    ["zone with an unknown key", "POST", "zones", { name: "gold.example", plan: "pro", owner: "me" }, "owner"],
  ];

  for (const [what, method, endpoint, body, field] of CASES) {
    test(what, async () => {
      // A snapshot: state() is the live object.
      const before = structuredClone(emu().state());
      const beforeInventory = JSON.stringify(before.zones.find((z) => z.id === ZONE.net));
      const r = await emu().callAdmin(method, endpoint, body);
      expect(r.status).toBe(400);
      expect(Object.keys(r.body)).toEqual(["error"]);
      expect(r.body.error).toEqual(expect.any(String));
      expect(r.body.error).toContain(field);
      // Nothing was stored: no fault, no latency, the same limit, zones and inventory.
      expect((await emu().callAdmin("GET", "faults")).body).toEqual([]);
      const after = emu().state();
      expect(after.rate_limit).toEqual(before.rate_limit);
      expect(after.zones.map((z) => z.id)).toEqual(before.zones.map((z) => z.id));
      expect(JSON.stringify(after.zones.find((z) => z.id === ZONE.net))).toBe(beforeInventory);
      // The API still answers as before (a latency the refused values could have set, 100 ms at most,
      // is not something a test can tell apart from a loaded machine: no wall-clock assert).
      expect((await emu().call("GET", settings)).status).toBe(200);
    });
  }

  test("the message says what the field must be and what was given", async () => {
    expect((await emu().callAdmin("POST", "faults", { status: 500, count: -1 })).body).toEqual({
      error: "count must be a positive integer, got -1",
    });
    expect((await emu().callAdmin("PUT", "latency", { ms: -5 })).body).toEqual({
      error: "ms must be a whole number of milliseconds from 0 to 600000, got -5",
    });
    expect((await emu().callAdmin("POST", "faults", { status: 500, path: "(" })).body.error).toBe(
      "path must be a path pattern (plain text; ^ and $ anchor it, * is any run of characters, | separates " +
        'alternatives), got "(" ("(" is not plain text: a path pattern is not a regular expression)',
    );
    expect((await emu().callAdmin("POST", "zones", { name: "a..b", plan: "pro" })).body).toEqual({
      error: 'name must be a hostname such as shop.example.com, got "a..b"',
    });
    expect((await emu().callAdmin("POST", "zones", { name: "a.test", plan: "gold" })).body).toEqual({
      error: 'plan must be one of free, pro, business, enterprise (or its plan id), got "gold"',
    });
    expect((await emu().callAdmin("POST", "faults", { status: 500, statuss: 503 })).body.error).toBe(
      'unknown field "statuss"; accepted fields: method, path, status, code, message, retry_after, ' +
        "delay_ms, reset, count, probability, seed, after",
    );
  });

  test("every wrong field is named in one answer", async () => {
    const r = await emu().callAdmin("POST", "faults", { status: 42, count: -1, delay_ms: -3, probability: 7 });
    expect(r.status).toBe(400);
    for (const field of ["status", "count", "delay_ms", "probability"])
      expect(r.body.error).toContain(`${field} must be`);
  });

  test("a body that is not an object is refused", async () => {
    for (const [method, endpoint] of [
      ["POST", "faults"],
      ["PUT", "latency"],
      ["PUT", "rate-limit"],
      ["POST", "inventory"],
      ["POST", "zones"],
    ]) {
      const r = await emu().callAdmin(method!, endpoint!, [1, 2]);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("the body must be a JSON object, got [1,2]");
    }
  });

  test("sensible input at the edges is still taken", async () => {
    expect(
      (
        await emu().callAdmin("POST", "faults", {
          method: "delete",
          path: "^zones/",
          status: 599,
          count: 1,
          probability: 0,
          delay_ms: 0,
          retry_after: 0,
        })
      ).status,
    ).toBe(200);
    expect((await emu().callAdmin("POST", "faults", { status: 400, probability: 1 })).status).toBe(200);
    expect((await emu().callAdmin("PUT", "latency", { ms: 0 })).status).toBe(200);
    expect((await emu().callAdmin("PUT", "rate-limit", { requests: 1, seconds: 1 })).status).toBe(200);
    expect((await emu().callAdmin("POST", "zones", { name: "Shop-1.Example.co.uk", plan: "Enterprise" })).body).toEqual(
      { id: zoneIdFor("shop-1.example.co.uk") },
    );
    expect((await emu().callAdmin("POST", "zones", { name: `${"a".repeat(63)}.example`, plan: "free" })).status).toBe(
      200,
    );
    const inv = { zone_id: ZONE.net, scripts: 0, connections: 0, cookies: 0, malicious_ratio: 1 };
    expect((await emu().callAdmin("POST", "inventory", inv)).body).toEqual({ scripts: 0, connections: 0, cookies: 0 });
  });
});
