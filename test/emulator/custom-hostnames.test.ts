// Custom hostnames in the emulator: list with its filters and paging bounds, get, and the PATCH of
// the certificate authority with the 1434 rule.
import { describe, expect, test } from "vitest";
import { useEmulator, ZONE } from "../helpers/cli.js";

const emu = useEmulator();
const base = `zones/${ZONE.com}/custom_hostnames`;

async function hostnameNamed(name: string) {
  const r = await emu().call("GET", `${base}?hostname=${name}`);
  return r.body.result[0];
}

describe("list", () => {
  test("returns the seeded hostnames with result_info", async () => {
    const r = await emu().call("GET", base);
    expect(r.status).toBe(200);
    expect(r.body.result).toHaveLength(5);
    expect(r.body.result_info).toEqual({ page: 1, per_page: 20, count: 5, total_count: 5, total_pages: 1 });
  });

  test("filters by exact hostname and by id, not both", async () => {
    const one = await emu().call("GET", `${base}?hostname=shop.acme-com.example`);
    expect(one.body.result.map((h: { hostname: string }) => h.hostname)).toEqual(["shop.acme-com.example"]);
    expect((await emu().call("GET", `${base}?hostname=acme-com.example`)).body.result).toEqual([]);
    const byId = await emu().call("GET", `${base}?id=${one.body.result[0].id}`);
    expect(byId.body.result).toHaveLength(1);
    expect((await emu().call("GET", `${base}?id=x&hostname=y`)).status).toBe(400);
  });

  test.each(["4", "51"])("rejects per_page=%s (5–50)", async (perPage) => {
    expect((await emu().call("GET", `${base}?per_page=${perPage}`)).status).toBe(400);
  });

  test("pages with per_page 5", async () => {
    const r = await emu().call("GET", `${base}?per_page=5&page=1`);
    expect(r.body.result_info).toMatchObject({ page: 1, per_page: 5, count: 5, total_count: 5, total_pages: 1 });
  });

  test("reads back the CA the service picked for a hostname made with the default CA", async () => {
    const h = await hostnameNamed("api.umbrella-com.example");
    expect(h.ssl.certificate_authority).toBe("google");
  });
});

describe("get", () => {
  test("returns one hostname, 404 for an unknown one", async () => {
    const h = await hostnameNamed("app.globex-com.example");
    const r = await emu().call("GET", `${base}/${h.id}`);
    expect(r.body.result).toMatchObject({
      id: h.id,
      hostname: "app.globex-com.example",
      ssl: { certificate_authority: "google" },
    });
    const missing = await emu().call("GET", `${base}/${"f".repeat(32)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].code).toBe(1436);
  });
});

describe("PATCH ssl", () => {
  test("changing the CA without method and type is 400/1434 and changes nothing", async () => {
    const h = await hostnameNamed("shop.acme-com.example");
    const r = await emu().call("PATCH", `${base}/${h.id}`, {
      ssl: { certificate_authority: "google", method: "http" },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].code).toBe(1434);
    expect(r.body.errors[0].message).toContain("type");
    expect((await emu().call("GET", `${base}/${h.id}`)).body.result.ssl.certificate_authority).toBe("lets_encrypt");
  });

  test("changing the CA with method and type applies and answers the full hostname", async () => {
    const h = await hostnameNamed("shop.acme-com.example");
    const r = await emu().call("PATCH", `${base}/${h.id}`, {
      ssl: { certificate_authority: "google", method: "txt", type: "dv" },
    });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({
      id: h.id,
      hostname: h.hostname,
      status: "active",
      ssl: {
        certificate_authority: "google",
        method: "txt",
        type: "dv",
        status: "pending_validation",
        bundle_method: "ubiquitous",
      },
    });
    expect(r.body.result.ssl.validation_records[0].txt_name).toBe("_acme-challenge.shop.acme-com.example");
    const after = (await emu().call("GET", `${base}/${h.id}`)).body.result;
    expect(after.ssl).toMatchObject({ certificate_authority: "google", method: "txt", status: "active" });
    expect(await emu().requests()).toContainEqual(
      expect.objectContaining({
        method: "PATCH",
        status: 200,
        body: { ssl: { certificate_authority: "google", method: "txt", type: "dv" } },
      }),
    );
  });

  test("an unchanged CA needs no method or type", async () => {
    const h = await hostnameNamed("shop.acme-com.example");
    const r = await emu().call("PATCH", `${base}/${h.id}`, {
      ssl: { certificate_authority: "lets_encrypt", bundle_method: "optimal" },
    });
    expect(r.status).toBe(200);
    expect(r.body.result.ssl.bundle_method).toBe("optimal");
  });

  test("moving to the default CA stores the CA the service picked, never the empty string", async () => {
    const h = await hostnameNamed("shop.acme-com.example");
    const r = await emu().call("PATCH", `${base}/${h.id}`, {
      ssl: { certificate_authority: "", method: "http", type: "dv" },
    });
    expect(r.status).toBe(200);
    expect(r.body.result.ssl.certificate_authority).toBe("google");
    const stored = emu()
      .state()
      .zones.find((z) => z.id === ZONE.com)!
      .custom_hostnames.find((x) => x.id === h.id)!;
    expect((stored.ssl as { certificate_authority: string }).certificate_authority).toBe("google");
  });

  test("rejects an unknown CA, method or field", async () => {
    const h = await hostnameNamed("shop.acme-com.example");
    const r = await emu().call("PATCH", `${base}/${h.id}`, {
      ssl: { certificate_authority: "comodo", method: "dns", type: "dv" },
      color: 1,
    });
    expect(r.status).toBe(400);
    const messages = r.body.errors.map((e: { message: string }) => e.message).join("\n");
    expect(messages).toContain("unknown field color");
    const ssl = await emu().call("PATCH", `${base}/${h.id}`, {
      ssl: { certificate_authority: "comodo", method: "dns", type: "dv" },
    });
    const sslMessages = ssl.body.errors.map((e: { message: string }) => e.message).join("\n");
    expect(sslMessages).toContain("'comodo' is not a valid value for certificate_authority");
    expect(sslMessages).toContain("'dns' is not a valid value for method");
  });

  test("sets custom_origin_server and custom_metadata", async () => {
    const h = await hostnameNamed("shop.acme-com.example");
    const r = await emu().call("PATCH", `${base}/${h.id}`, {
      custom_origin_server: "origin.example.com",
      custom_metadata: { tier: "gold" },
    });
    expect(r.body.result).toMatchObject({
      custom_origin_server: "origin.example.com",
      custom_metadata: { tier: "gold" },
    });
    expect(r.body.result.ssl.status).toBe("active");
  });
});

describe("a hostname without a certificate (stored without ssl)", () => {
  /** Adds a hostname no certificate was ordered for, as the state document can hold it. */
  function addBare(): string {
    const id = "0f1e2d3c-4b5a-4678-9abc-def012345678";
    const zone = emu()
      .state()
      .zones.find((z) => z.id === ZONE.com)!;
    zone.custom_hostnames.push({ id, hostname: "bare.acme-com.example", status: "active" });
    return id;
  }

  test("answers without ssl, and ssl=1 leaves it out", async () => {
    const id = addBare();
    const got = await emu().call("GET", `${base}/${id}`);
    expect(got.body.result).toEqual({ id, hostname: "bare.acme-com.example", status: "active" });
    const listed = (await emu().call("GET", base)).body.result.map((h: { id: string }) => h.id);
    expect(listed).toContain(id);
    const withSsl = (await emu().call("GET", `${base}?ssl=1`)).body.result.map((h: { id: string }) => h.id);
    expect(withSsl).not.toContain(id);
    expect(withSsl).toHaveLength(5);
  });

  test("a PATCH with method and type orders its certificate; without them it is 400/1434", async () => {
    const id = addBare();
    const missing = await emu().call("PATCH", `${base}/${id}`, { ssl: { certificate_authority: "ssl_com" } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({ code: 1434, source: { pointer: "/ssl" } });
    expect((await emu().call("GET", `${base}/${id}`)).body.result).not.toHaveProperty("ssl");
    const ordered = await emu().call("PATCH", `${base}/${id}`, {
      ssl: { method: "txt", type: "dv", certificate_authority: "ssl_com" },
    });
    expect(ordered.status).toBe(200);
    expect(ordered.body.result.ssl).toMatchObject({
      method: "txt",
      type: "dv",
      certificate_authority: "ssl_com",
      status: "pending_validation",
      txt_name: "_acme-challenge.bare.acme-com.example",
    });
    expect((await emu().call("GET", `${base}/${id}`)).body.result.ssl).toMatchObject({
      certificate_authority: "ssl_com",
      status: "active",
      bundle_method: "ubiquitous",
    });
  });

  test("an order without a CA gets the service's default CA", async () => {
    const id = addBare();
    await emu().call("PATCH", `${base}/${id}`, { ssl: { method: "http", type: "dv" } });
    expect((await emu().call("GET", `${base}/${id}`)).body.result.ssl.certificate_authority).toBe("google");
  });
});
