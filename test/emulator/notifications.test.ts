// The emulator's Notifications policies (accounts/{id}/alerting/v3/policies) over real HTTP: the
// answers' shapes (a create and an update answer {id}, the list one page), validation (every problem in
// one 400), the zone filter naming zones of the account only, a PUT that replaces the policy's fields.
import { describe, expect, it } from "vitest";
import { ACCOUNT, useEmulator, ZONE } from "../helpers/cli.js";

const P = `accounts/${ACCOUNT}/alerting/v3/policies`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const getEmu = useEmulator();

const NEW_SCRIPTS = {
  name: "New scripts on payment pages",
  alert_type: "scriptmonitor_alert_new_resources",
  enabled: true,
  mechanisms: { email: [{ id: "secops@example.com" }], webhooks: [{ id: "b6a1c9e0d2f34e1c8f0a1b2c3d4e5f60" }] },
  filters: { zones: [ZONE.com] },
};

describe("notification policies", () => {
  it("creates, reads, lists, replaces and deletes a policy", async () => {
    const emu = getEmu();
    const created = await emu.call("POST", P, NEW_SCRIPTS);
    expect(created.status, JSON.stringify(created.body.errors)).toBe(200);
    expect(created.body).toMatchObject({ success: true, errors: [], messages: [] });
    expect(Object.keys(created.body.result)).toEqual(["id"]);
    const id = created.body.result.id as string;
    expect(id).toMatch(UUID);

    const one = await emu.call("GET", `${P}/${id}`);
    expect(one.body.result).toMatchObject({ id, ...NEW_SCRIPTS });
    expect(typeof one.body.result.created).toBe("string");
    const list = await emu.call("GET", P);
    expect(list.body.result).toEqual([one.body.result]);
    expect(list.body).not.toHaveProperty("result_info");

    // A PUT is the policy whole: what it leaves out (the zone filter, the description) is gone.
    await emu.call("PUT", `${P}/${id}`, { ...NEW_SCRIPTS, description: "kept?" });
    const put = await emu.call("PUT", `${P}/${id}`, {
      name: "renamed",
      alert_type: "scriptmonitor_alert_new_hosts",
      enabled: false,
      mechanisms: { email: [{ id: "a@example.com" }] },
    });
    expect(put.body.result).toEqual({ id });
    const after = (await emu.call("GET", `${P}/${id}`)).body.result;
    expect(after).toMatchObject({ name: "renamed", alert_type: "scriptmonitor_alert_new_hosts", enabled: false });
    expect(after.filters).toEqual({});
    expect(after).not.toHaveProperty("description");
    expect(after.created).toBe(one.body.result.created);

    const gone = await emu.call("DELETE", `${P}/${id}`);
    expect(gone.status).toBe(200);
    expect(gone.body.success).toBe(true);
    expect((await emu.call("GET", `${P}/${id}`)).status).toBe(404);
    expect((await emu.call("GET", P)).body.result).toEqual([]);
  });

  it("refuses a create without alert_type or mechanisms, naming every problem", async () => {
    const emu = getEmu();
    const res = await emu.call("POST", P, { name: "x", enabled: "yes" });
    expect(res.status).toBe(400);
    const pointers = (res.body.errors as Array<{ source?: { pointer: string } }>).map((e) => e.source?.pointer);
    expect(pointers).toEqual(expect.arrayContaining(["/alert_type", "/mechanisms", "/enabled"]));
    expect((await emu.call("GET", P)).body.result).toEqual([]);
  });

  it("refuses an unknown alert type, a malformed e-mail and a zone of no zone of the account", async () => {
    const emu = getEmu();
    const res = await emu.call("POST", P, {
      ...NEW_SCRIPTS,
      alert_type: "scriptmonitor_alert_everything",
      mechanisms: { email: [{ id: "not an address" }] },
      filters: { zones: [ZONE.com, "ffffffffffffffffffffffffffffffff"] },
    });
    expect(res.status).toBe(400);
    const pointers = (res.body.errors as Array<{ source?: { pointer: string } }>).map((e) => e.source?.pointer);
    expect(pointers.sort()).toEqual(["/alert_type", "/filters/zones/1", "/mechanisms/email/0/id"]);
  });

  it("answers 404 for a policy that does not exist and 400 for a malformed policy id", async () => {
    const emu = getEmu();
    expect((await emu.call("GET", `${P}/0da2b59e-f118-439d-8097-bdfb215203c9`)).status).toBe(404);
    expect((await emu.call("PUT", `${P}/not-an-id`, NEW_SCRIPTS)).status).toBe(400);
  });
});
