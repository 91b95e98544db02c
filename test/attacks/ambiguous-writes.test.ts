// Issue 15, "writes that happened are reported as not written". A POST carried out but answered with
// a connection reset used to end with exit 1 and "nothing was written"; a DELETE that succeeded but
// was answered 500, retried and answered 404 failed the zone the same way. A write that may have
// happened is exit 4 and told as such; a create is sent again only once its whole list, read again, shows
// nothing was made (issue 47); a retried DELETE answered "not found" by the API itself is done. Faults come from the emulator
// (`after: true`: the handler runs first).
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, writeConfig } from "../helpers/cli.js";
import { changingWrites, expectFailure, runBuilt, STACK, useHostileProxy } from "./helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);

const Z = ZONE.com;
const POLICIES = `zones/${Z}/page_shield/policies`;
const CHECKOUT = {
  description: "Checkout",
  action: "log",
  expression: 'http.request.uri.path contains "/checkout"',
  value: "script-src 'self'",
  enabled: true,
};

const config = (policies: string) =>
  writeConfig(
    `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    page_shield:\n      policies:${policies}\n`,
  );
const WITH_CHECKOUT =
  `\n        - { description: Checkout, action: log, expression: 'http.request.uri.path ` +
  `contains "/checkout"', value: "script-src 'self'" }`;

const apply = (file: string, url = emu.url) =>
  runBuilt(["apply", "-c", file, "--auto-approve", "--api-url", url], { deadlineMs: 12_000 });

describe("a write whose outcome is unknown", () => {
  it("a POST carried out but answered with a connection reset: looked for, found made and adopted, never " +
    "sent again; exit 0 and the next plan is clean", async () => {
    const file = await config(WITH_CHECKOUT);
    await emu.admin("POST", "/faults", {
      method: "POST",
      path: "page_shield/policies$",
      reset: true,
      after: true,
      count: 1,
    });
    const r = await apply(file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`POST ${POLICIES}: the answer was lost, but what it creates is there: adopted`);
    // One POST, carried out (the reset is logged with status 0), never sent again.
    expect((await emu.requests()).filter((q) => q.method !== "GET").map((q) => [q.method, q.path, q.status])).toEqual([
      ["POST", `/client/v4/${POLICIES}`, 0],
    ]);
    expect(await emu.api<unknown[]>("GET", POLICIES)).toHaveLength(1);
    const replan = await runBuilt(["plan", "-c", file, "--detailed-exitcode", "--api-url", emu.url]);
    expect(replan.code, replan.stdout + replan.stderr).toBe(0);
  }, 15_000);

  it("a POST answered 502 that was not carried out is looked for, not found in the whole list, and sent again: " +
    "exit 0, one object, and the next apply has nothing to do", async () => {
    const file = await config(WITH_CHECKOUT);
    await emu.admin("POST", "/faults", { method: "POST", path: "page_shield/policies$", status: 502, count: 1 });
    const r = await apply(file);
    // The whole list, read again, shows nothing was made: sent again, made, and one apply is enough.
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `POST ${POLICIES}: it was answered HTTP 502; the whole list, read again, shows nothing was made: sent again`,
    );
    expect(changingWrites(await emu.calls())).toEqual([`POST ${POLICIES}`, `POST ${POLICIES}`]);
    expect(await emu.api<unknown[]>("GET", POLICIES)).toHaveLength(1);
    await emu.clearRequests();
    const again = await apply(file);
    expect(again.code, again.stderr).toBe(0);
    expect(changingWrites(await emu.calls())).toEqual([]);
    expect(await emu.api<unknown[]>("GET", POLICIES)).toHaveLength(1);
  }, 20_000);

  it("a POST carried out but answered 502 is found made and adopted: exit 0, sent once", async () => {
    const file = await config(WITH_CHECKOUT);
    await emu.admin("POST", "/faults", {
      method: "POST",
      path: "page_shield/policies$",
      status: 502,
      after: true,
      count: 1,
    });
    const r = await apply(file);
    expect(r.code, r.stderr).toBe(0);
    expect(changingWrites(await emu.calls())).toEqual([`POST ${POLICIES}`]);
    expect(await emu.api<unknown[]>("GET", POLICIES)).toHaveLength(1);
  }, 15_000);

  it("a POST answered 502 every time is sent three times, each after a whole re-read, then stops with exit 4, " +
    '"may have been written"', async () => {
    const file = await config(WITH_CHECKOUT);
    await emu.admin("POST", "/faults", { method: "POST", path: "page_shield/policies$", status: 502 });
    const r = await apply(file);
    expectFailure(r, 4);
    expect(r.stderr).toContain("(1 of them may have been written)");
    expect(r.stderr).not.toContain("nothing was written");
    // The plan's read, the check before the create, then each POST and the list read afresh: nothing with its
    // description is new, so nothing is read by id; after the third, it stops.
    const send = [`POST ${POLICIES}`, `GET ${POLICIES}`];
    expect(await emu.calls()).toEqual([`GET ${POLICIES}`, `GET ${POLICIES}`, ...send, ...send, ...send]);
    expect(r.stderr).toContain("nothing new with its hints is in the list, after 3 sends: it was not sent again");
    expect(await emu.api<unknown[]>("GET", POLICIES)).toHaveLength(0);
  }, 30_000);

  it('a POST refused before anything was done (400) is the one case told as "nothing was written", exit 1', async () => {
    const file = await config(WITH_CHECKOUT);
    await emu.admin("POST", "/faults", {
      method: "POST",
      path: "page_shield/policies$",
      status: 400,
      code: 10001,
      count: 1,
    });
    const r = await apply(file);
    expectFailure(r, 1);
    expect(r.stderr).toContain("Error: apply failed before any change was made; nothing was written.\n");
    expect(r.stderr).not.toContain("may have been");
    expect(await emu.api<unknown[]>("GET", POLICIES)).toEqual([]);
  }, 15_000);
});

describe("a DELETE that succeeded but was not answered as such", () => {
  it("answered 500, retried and answered the API's 404: counted as done, exit 0", async () => {
    const old = await emu.api<{ id: string }>("POST", POLICIES, { ...CHECKOUT, description: "Old" });
    const file = await config(" []");
    await emu.clearRequests();
    await emu.admin("POST", "/faults", {
      method: "DELETE",
      path: "page_shield/policies/",
      status: 500,
      after: true,
      count: 1,
    });
    const r = await apply(file);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stdout).toContain("Apply complete! Resources: 0 created, 0 updated, 0 replaced, 1 deleted.");
    expect(r.stderr).toContain('example.com: - page_shield_policy "Old": done');
    const writes = (await emu.requests()).filter((q) => q.method !== "GET").map((q) => [q.method, q.path, q.status]);
    expect(writes).toEqual([
      ["DELETE", `/client/v4/${POLICIES}/${old.id}`, 500],
      ["DELETE", `/client/v4/${POLICIES}/${old.id}`, 404],
    ]);
    expect(await emu.api<unknown[]>("GET", POLICIES)).toEqual([]);
  }, 15_000);

  it("answered with a reset after it was made, retried and answered the API's 404: counted as done, exit 0", async () => {
    await emu.api("POST", POLICIES, { ...CHECKOUT, description: "Old" });
    const file = await config(" []");
    await emu.clearRequests();
    await emu.admin("POST", "/faults", {
      method: "DELETE",
      path: "page_shield/policies/",
      reset: true,
      after: true,
      count: 1,
    });
    const r = await apply(file);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("1 deleted.");
    expect(changingWrites(await emu.calls())).toHaveLength(2);
  }, 15_000);

  it('answered 500, retried and answered an HTML 404 (not the API\'s): exit 4, "may have been made", never ' +
    '"nothing was written"', async () => {
    await emu.api("POST", POLICIES, { ...CHECKOUT, description: "Old" });
    const file = await config(" []");
    let deletes = 0;
    hostile.proxy.spoil = async (req, res, forward) => {
      if (req.method !== "DELETE") return false;
      deletes++;
      if (deletes === 1) {
        await forward(); // carried out
        res.writeHead(500, { "content-type": "application/json" }).end(
          JSON.stringify({
            success: false,
            errors: [{ code: 10001, message: "Internal Server Error" }],
            messages: [],
            result: null,
          }),
        );
      } else {
        res.writeHead(404, { "content-type": "text/html" }).end("<html><body><h1>404 Not Found</h1></body></html>");
      }
      return true;
    };
    const r = await apply(file, hostile.proxy.url);
    expect(await emu.api<unknown[]>("GET", POLICIES)).toEqual([]);
    expect(r.stderr).not.toContain("nothing was written");
    expectFailure(r, 4);
    expect(r.stderr).toContain("may have been");
  }, 15_000);
});
