// Every custom hostname answer of the emulator validates against the official OpenAPI schema
// (test/fixtures/openapi/custom_hostnames.json). Its 4XX schema is unsatisfiable (allOf of success
// and failure), so only successful answers are checked.
import { expect, test } from "vitest";
import { expectConformsTo } from "../helpers/openapi.js";
import { useEmulator, ZONES } from "../helpers/emulator.js";

const emu = useEmulator();
const T = "/zones/{zone_id}/custom_hostnames";

test("custom hostname lists, items and PATCH answers conform to the official schema", async () => {
  for (const zone of Object.values(ZONES)) {
    const list = await emu().api("GET", `zones/${zone}/custom_hostnames?per_page=50`);
    expect(list.status).toBe(200);
    expectConformsTo("custom_hostnames.json", T, "GET", 200, list.body);
    for (const h of list.body.result as Array<{ id: string }>) {
      const one = await emu().api("GET", `zones/${zone}/custom_hostnames/${h.id}`);
      expectConformsTo("custom_hostnames.json", `${T}/{custom_hostname_id}`, "GET", 200, one.body);
    }
  }
  const [first] = (await emu().api("GET", `zones/${ZONES.com}/custom_hostnames`)).body.result as Array<{ id: string }>;
  for (const ssl of [
    { certificate_authority: "google", method: "txt", type: "dv" },
    { certificate_authority: "ssl_com", method: "http", type: "dv" },
    { certificate_authority: "", method: "http", type: "dv" },
    { bundle_method: "optimal", settings: { min_tls_version: "1.3" } },
  ]) {
    const patched = await emu().api("PATCH", `zones/${ZONES.com}/custom_hostnames/${first!.id}`, { ssl });
    expect(patched.status).toBe(200);
    expectConformsTo("custom_hostnames.json", `${T}/{custom_hostname_id}`, "PATCH", 200, patched.body);
  }
});
