// GET zones/{id}: the zone's name and plan, which zoneform reads before the WAF migration.
import { describe, expect, test } from "vitest";
import { useEmulator, ZONE } from "../helpers/cli.js";

const emu = useEmulator();

describe("zone details", () => {
  test("answers the seed zone's name and plan", async () => {
    const r = await emu().call("GET", `zones/${ZONE.com}`);
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({
      id: ZONE.com,
      name: "example.com",
      status: "active",
      plan: { legacy_id: "enterprise", name: "Enterprise Website" },
    });
    expect((await emu().call("GET", `zones/${ZONE.org}`)).body.result.plan.legacy_id).toBe("pro");
  });
  test("404 for an unknown zone, 400 for a malformed id", async () => {
    expect((await emu().call("GET", `zones/${"0".repeat(32)}`)).status).toBe(404);
    expect((await emu().call("GET", "zones/not-an-id")).status).toBe(400);
  });
});
