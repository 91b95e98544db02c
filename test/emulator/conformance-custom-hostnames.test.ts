// Every custom hostname answer of the emulator validates against the official OpenAPI schema
// (test/fixtures/openapi/custom_hostnames.json). Its 4XX schema is unsatisfiable (allOf of success
// and failure), so only successful answers are checked.
import { expect, test } from "vitest";
import { expectConformsTo as expectConformsToSchema } from "../helpers/openapi.js";
import { useEmulator, ZONE } from "../helpers/cli.js";

const emu = useEmulator();
const T = "/zones/{zone_id}/custom_hostnames";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The 2024 schema's hostname `identifier` has maxLength 32, but real hostname ids are UUIDs of 36
 * characters (recorded/cft_custom_hostnames_v5.json). Ids are checked to be UUIDs here, then stand in
 * without their dashes for the schema check; everything else is checked as the schema says.
 */
function expectConformsTo(file: string, template: string, method: string, status: number, body: any): void {
  const undash = (h: any) => {
    expect(h.id).toMatch(UUID);
    expect(h.ssl.id).toMatch(UUID);
    return { ...h, id: h.id.replace(/-/g, "") };
  };
  const result = Array.isArray(body.result) ? body.result.map(undash) : undash(body.result);
  expectConformsToSchema(file, template, method, status, { ...body, result });
}

test("custom hostname lists, items and PATCH answers conform to the official schema", async () => {
  for (const zone of Object.values(ZONE)) {
    const list = await emu().call("GET", `zones/${zone}/custom_hostnames?per_page=50`);
    expect(list.status).toBe(200);
    expectConformsTo("custom_hostnames.json", T, "GET", 200, list.body);
    for (const h of list.body.result as Array<{ id: string }>) {
      const one = await emu().call("GET", `zones/${zone}/custom_hostnames/${h.id}`);
      expectConformsTo("custom_hostnames.json", `${T}/{custom_hostname_id}`, "GET", 200, one.body);
    }
  }
  const [first] = (await emu().call("GET", `zones/${ZONE.com}/custom_hostnames`)).body.result as Array<{ id: string }>;
  for (const ssl of [
    { certificate_authority: "google", method: "txt", type: "dv" },
    { certificate_authority: "ssl_com", method: "http", type: "dv" },
    { certificate_authority: "", method: "http", type: "dv" },
    { bundle_method: "optimal", settings: { min_tls_version: "1.3" } },
    {
      certificate_authority: "",
      method: "txt",
      type: "dv",
      bundle_method: "ubiquitous",
      wildcard: false,
      settings: {},
    },
  ]) {
    const patched = await emu().call("PATCH", `zones/${ZONE.com}/custom_hostnames/${first!.id}`, { ssl });
    expect(patched.status).toBe(200);
    expectConformsTo("custom_hostnames.json", `${T}/{custom_hostname_id}`, "PATCH", 200, patched.body);
  }
});

test("the uploaded-certificate hostname and its PATCH answers conform", async () => {
  const list = (await emu().call("GET", `zones/${ZONE.com}/custom_hostnames`)).body.result as Array<{
    id: string;
    ssl: Record<string, unknown>;
  }>;
  const uploaded = list.find((h) => typeof h.ssl.custom_certificate === "string")!;
  const one = await emu().call("GET", `zones/${ZONE.com}/custom_hostnames/${uploaded.id}`);
  expectConformsTo("custom_hostnames.json", `${T}/{custom_hostname_id}`, "GET", 200, one.body);
  const patched = await emu().call("PATCH", `zones/${ZONE.com}/custom_hostnames/${uploaded.id}`, {
    ssl: { settings: { min_tls_version: "1.2" } },
  });
  expect(patched.status).toBe(200);
  expectConformsTo("custom_hostnames.json", `${T}/{custom_hostname_id}`, "PATCH", 200, patched.body);
});
