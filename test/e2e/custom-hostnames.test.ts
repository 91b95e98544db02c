// Custom hostname certificate authorities end to end against the emulator: plan → apply → plan with
// no changes, the exact PATCH bodies (with the live method and type), the reads (one list call per zone), and a missing
// hostname as a plan error with no writes.
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

// The seed's hostnames of example.com: shop (lets_encrypt, http), app (google, txt), portal
// (digicert), api (the default CA: reads back google), secure (an uploaded certificate).
const SHOP = "shop.acme-com.example";
const APP = "app.globex-com.example";
const PORTAL = "portal.initech-com.example";
const API = "api.umbrella-com.example";

const config = (hosts: Array<[string, string]>) =>
  writeConfig(
    `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    name: example.com\n    custom_hostnames:\n` +
      hosts.map(([h, ca]) => `      - hostname: ${h}\n        certificate_authority: ${JSON.stringify(ca)}\n`).join(""),
  );

interface Hostname {
  id: string;
  hostname: string;
  ssl: { certificate_authority?: string; method: string; type: string };
}
const liveCa = async (hostname: string) =>
  (await emu.api<Hostname[]>("GET", `zones/${ZONE.com}/custom_hostnames?hostname=${hostname}`))[0]!.ssl
    .certificate_authority ?? "";

/** The PATCH `ssl` the Terraform provider sends: the live object's writable fields, only the CA changed. */
const WRITABLE = ["method", "type", "bundle_method", "wildcard", "cloudflare_branding", "settings"] as const;
async function expectedSsl(hostname: string, ca: string): Promise<Record<string, unknown>> {
  const ssl = (
    await emu.api<Array<{ ssl: Record<string, unknown> }>>(
      "GET",
      `zones/${ZONE.com}/custom_hostnames?hostname=${hostname}`,
    )
  )[0]!.ssl;
  const out: Record<string, unknown> = {};
  for (const k of WRITABLE)
    if (ssl[k] !== undefined && !(k === "settings" && Object.keys(ssl[k] as object).length === 0)) out[k] = ssl[k];
  return { ...out, certificate_authority: ca };
}

describe("custom hostnames end to end", () => {
  it(
    'leaves "" hostnames on the CA Cloudflare chose, moves one off digicert and one to another CA with the ' +
      "whole ssl object, then shows no changes",
    async () => {
      const file = await config([
        [SHOP, ""],
        [APP, "ssl_com"],
        [PORTAL, ""],
        [API, ""],
      ]);
      const plan1 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
      expect(plan1.code, plan1.stderr).toBe(2);
      expect(plan1.stdout).not.toContain(`custom_hostname "${SHOP}"`);
      expect(plan1.stdout).toContain(`~ custom_hostname "${PORTAL}"`);
      expect(plan1.stdout).toContain('~ certificate_authority: "digicert" → ""');
      expect(plan1.stdout).toContain('certificate authority digicert → "" (the default CA)');
      expect(plan1.stdout).toMatch(/moves off digicert, which Cloudflare no longer issues from/);
      expect(plan1.stdout).toMatch(/"" lets Cloudflare pick the CA/);
      expect(plan1.stdout).toMatch(/re-triggers domain control validation \(method txt\)/);
      expect(plan1.stdout).toContain("Plan: 0 to create, 2 to update, 0 to replace, 0 to delete.");

      const want = { [PORTAL]: await expectedSsl(PORTAL, ""), [APP]: await expectedSsl(APP, "ssl_com") };
      expect(want[APP]).toMatchObject({ method: "txt", type: "dv", bundle_method: "ubiquitous", wildcard: false });
      await emu.clearRequests();
      const apply = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
      expect(apply.code, apply.stderr).toBe(0);
      const log = (await emu.requests()).filter((r) => r.method !== "GET");
      const ids = Object.fromEntries(
        (await emu.api<Hostname[]>("GET", `zones/${ZONE.com}/custom_hostnames`)).map((h) => [h.hostname, h.id]),
      );
      expect(log.map((r) => [r.method, r.path.replace(/^\/client\/v4\//, ""), r.body])).toEqual(
        expect.arrayContaining([
          ["PATCH", `zones/${ZONE.com}/custom_hostnames/${ids[PORTAL]}`, { ssl: want[PORTAL] }],
          ["PATCH", `zones/${ZONE.com}/custom_hostnames/${ids[APP]}`, { ssl: want[APP] }],
        ]),
      );
      expect(log).toHaveLength(2);
      // A default-CA hostname reads back the CA the service picked, never "".
      expect(await liveCa(PORTAL)).not.toBe("");
      expect(await liveCa(PORTAL)).not.toBe("digicert");
      expect(await liveCa(APP)).toBe("ssl_com");

      const plan2 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
      expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
      expect(plan2.stdout).toContain("No changes.");
    },
  );

  it("reads the zone's hostnames with one list call (50 a page) and nothing else", async () => {
    const file = await config([
      [SHOP, "lets_encrypt"],
      [APP, "google"],
    ]);
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", file]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("No changes.");
    const reads = (await emu.requests()).map((r) => [r.method, r.path.replace(/^\/client\/v4\//, ""), r.query]);
    expect(reads).toEqual([["GET", `zones/${ZONE.com}/custom_hostnames`, { per_page: "50" }]]);
  });

  it("past the list's first page, looks up only the listed hostnames it did not hold", async () => {
    const state = await emu.admin<{ zones: Array<{ id: string; custom_hostnames: Array<Record<string, any>> }> }>(
      "GET",
      "/state",
    );
    const zone = state.zones.find((z) => z.id === ZONE.com)!;
    const template = zone.custom_hostnames[1]!;
    for (let i = 0; i < 60; i++) {
      const id = (i + 1).toString(16).padStart(32, "a");
      zone.custom_hostnames.push({ ...template, id, hostname: `h${i}.bulk.example`, ssl: { ...template.ssl } });
    }
    await emu.admin("PUT", "/state", state);
    // On the first page (the seed's hostnames, then h0…h44): h0…h40; past it: h59.
    const listed: Array<[string, string]> = Array.from({ length: 21 }, (_, i) => [`h${i * 2}.bulk.example`, "google"]);
    listed.push([`h59.bulk.example`, "ssl_com"]);
    const file = await config(listed);
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
    const reads = await emu.requests();
    expect(reads.map((r) => r.query)).toEqual([{ per_page: "50" }, { hostname: "h59.bulk.example" }]);
  });

  it("makes a missing hostname a plan error: exit 1, nothing written, never created", async () => {
    const file = await config([
      [SHOP, ""],
      ["nope.customer.example", "google"],
    ]);
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", file]);
    expect(plan.code).toBe(1);
    const message =
      `custom hostname nope.customer.example does not exist in zone ${ZONE.com}; zoneform ` +
      `never creates hostnames — create it first or remove it from the file`;
    expect(plan.stdout + plan.stderr).toContain(message);
    const apply = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
    expect(apply.code).toBe(1);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    expect(await liveCa(SHOP)).toBe("lets_encrypt");
  });

  it(
    "keeps a default-CA hostname (which reads back the CA Cloudflare picked) without a change, with " + '"" or no CA',
    async () => {
      expect(await liveCa(API)).toBe("google");
      const plan = await runCli(emu, ["plan", "-c", await config([[API, ""]]), "--detailed-exitcode"]);
      expect(plan.code, plan.stderr).toBe(0);
      const unset = await writeConfig(
        `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    custom_hostnames:\n      - hostname: ${API}\n`,
      );
      expect((await runCli(emu, ["plan", "-c", unset, "--detailed-exitcode"])).code).toBe(0);
      const onto = await config([[API, "lets_encrypt"]]);
      const plan2 = await runCli(emu, ["plan", "-c", onto]);
      expect(plan2.stdout).toContain('~ certificate_authority: "google" → "lets_encrypt"');
      expect(plan2.stdout).toMatch(/self-signed root chain only/);
    },
  );

  it("never patches a hostname serving an uploaded certificate; a CA the file names for it stops the zone", async () => {
    const UPLOADED = "secure.hooli-com.example";
    await emu.clearRequests();
    const quiet = await runCli(emu, ["apply", "-c", await config([[UPLOADED, ""]]), "--auto-approve"]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout + quiet.stderr).not.toMatch(/uploaded certificate/);
    const file = await config([[UPLOADED, "google"]]);
    const plan = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain(
      `custom hostname ${UPLOADED} serves an uploaded certificate, which no CA issues and no domain control ` +
        "validation renews (live digicert): certificate_authority google cannot apply.",
    );
    expect((await runCli(emu, ["drift", "-c", file])).code).toBe(1);
    const named = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
    expect(named.code).toBe(1);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });

  it("refuses a saved plan once the hostname's CA changed underneath, writing nothing", async () => {
    const file = await config([[SHOP, "google"]]);
    const out = `${file}.plan.json`;
    expect((await runCli(emu, ["plan", "-c", file, "--out", out])).code).toBe(0);
    const id = (await emu.api<Hostname[]>("GET", `zones/${ZONE.com}/custom_hostnames?hostname=${SHOP}`))[0]!.id;
    await emu.api("PATCH", `zones/${ZONE.com}/custom_hostnames/${id}`, {
      ssl: { method: "http", type: "dv", certificate_authority: "ssl_com" },
    });
    await emu.clearRequests();
    const stale = await runCli(emu, ["apply", out]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`custom_hostname/${SHOP}`);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});

/** Rewrites one seed hostname of example.com through the state document (how the emulator holds legacy shapes). */
async function reshape(
  hostname: string,
  ssl: (current: Record<string, unknown>) => Record<string, unknown>,
): Promise<string> {
  const state = await emu.admin<{ zones: Array<{ id: string; custom_hostnames: Array<Record<string, any>> }> }>(
    "GET",
    "/state",
  );
  const h = state.zones.find((z) => z.id === ZONE.com)!.custom_hostnames.find((x) => x.hostname === hostname)!;
  h.ssl = ssl(h.ssl);
  await emu.admin("PUT", "/state", state);
  return h.id as string;
}

describe("custom hostnames with legacy live values", () => {
  it(
    "never echoes a legacy method cname: a CA change stops with what to choose, and once chosen the PATCH " +
      "carries only accepted values",
    async () => {
      const id = await reshape(SHOP, (ssl) => ({ ...ssl, method: "cname" }));
      // The emulator holds it and answers it, but refuses cname in a PATCH as the API does.
      expect(
        (await emu.api<Hostname[]>("GET", `zones/${ZONE.com}/custom_hostnames?hostname=${SHOP}`))[0]!.ssl.method,
      ).toBe("cname");
      expect(
        (await emu.call("PATCH", `zones/${ZONE.com}/custom_hostnames/${id}`, { ssl: { method: "cname", type: "dv" } }))
          .status,
      ).toBe(400);

      // No change asked for: nothing to say, nothing written.
      await emu.clearRequests();
      expect((await runCli(emu, ["apply", "-c", await config([[SHOP, "lets_encrypt"]]), "--auto-approve"])).code).toBe(
        0,
      );
      expect(await emu.calls({ writesOnly: true })).toEqual([]);

      const file = await config([[SHOP, "google"]]);
      const plan = await runCli(emu, ["plan", "-c", file]);
      expect(plan.code).toBe(1);
      expect(plan.stdout + plan.stderr).toContain(
        `custom hostname ${SHOP}: its validation method is the legacy "cname", which the API no longer ` +
          `accepts in a PATCH (only http, txt, email); a CA change must carry a method (error 1434) and zoneform ` +
          `will not choose one for you. Add method: http, txt or email under the hostname in custom_hostnames`,
      );
      const refused = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
      expect(refused.code).toBe(1);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);

      // The user chooses txt (their own call), then plan → apply → plan.
      await emu.api("PATCH", `zones/${ZONE.com}/custom_hostnames/${id}`, { ssl: { method: "txt", type: "dv" } });
      await emu.clearRequests();
      const apply = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);
      const writes = (await emu.requests())
        .filter((r) => r.method !== "GET")
        .map((r) => [r.method, r.path.replace(/^\/client\/v4\//, ""), r.body]);
      expect(writes).toEqual([
        ["PATCH", `zones/${ZONE.com}/custom_hostnames/${id}`, { ssl: await expectedSsl(SHOP, "google") }],
      ]);
      expect(JSON.stringify(writes)).not.toContain('cname"');
      expect((writes[0]![2] as { ssl: { method: string } }).ssl.method).toBe("txt");
      const again = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
      expect(again.code, again.stdout + again.stderr).toBe(0);
    },
  );

  it("leaves a legacy bundle method out of the PATCH, and says so", async () => {
    const id = await reshape(APP, (ssl) => ({ ...ssl, bundle_method: "legacy_bundle" }));
    const file = await config([[APP, "ssl_com"]]);
    const plan = await runCli(emu, ["plan", "-c", file]);
    expect(plan.stdout).toContain(
      'live bundle_method "legacy_bundle": not accepted in a PATCH, so left out of it (not echoed)',
    );
    await emu.clearRequests();
    expect((await runCli(emu, ["apply", "-c", file, "--auto-approve"])).code).toBe(0);
    const writes = (await emu.requests()).filter((r) => r.method !== "GET");
    expect(writes.map((r) => [r.method, r.path.replace(/^\/client\/v4\//, "")])).toEqual([
      ["PATCH", `zones/${ZONE.com}/custom_hostnames/${id}`],
    ]);
    expect((writes[0]!.body as { ssl: Record<string, unknown> }).ssl).not.toHaveProperty("bundle_method");
    expect((await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"])).code).toBe(0);
  });
});

describe("a custom hostname whose answer states no CA", () => {
  const unstate = (issuer?: string) =>
    reshape(APP, (ssl) => ({
      ...ssl,
      certificate_authority: null,
      ...(issuer ? { certificates: [{ id: "c1", issuer, signature: "ECDSAWithSHA256" }] } : {}),
    }));

  it("is told by its issuer: plans the PATCH when the file names another CA, nothing when the same", async () => {
    const id = await unstate("GoogleTrustServices");
    const answered = (await emu.api<Hostname[]>("GET", `zones/${ZONE.com}/custom_hostnames?hostname=${APP}`))[0]!;
    expect(answered.ssl).not.toHaveProperty("certificate_authority");
    for (const ca of ["google", ""]) {
      await emu.clearRequests();
      const same = await runCli(emu, ["plan", "-c", await config([[APP, ca]]), "--detailed-exitcode"]);
      expect(same.code, same.stdout + same.stderr).toBe(0);
      expect(same.stdout).toContain("No changes.");
    }
    const file = await config([[APP, "lets_encrypt"]]);
    const plan1 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
    expect(plan1.stdout).toContain(
      "# certificate authority not stated (issued by GoogleTrustServices, so google) → lets_encrypt",
    );
    // drift says the zone differs.
    expect((await runCli(emu, ["drift", "-c", file])).code).toBe(2);
    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const writes = (await emu.requests()).filter((r) => r.method !== "GET");
    expect(writes.map((r) => [r.method, r.path.replace(/^\/client\/v4\//, ""), r.body])).toEqual([
      ["PATCH", `zones/${ZONE.com}/custom_hostnames/${id}`, { ssl: await expectedSsl(APP, "lets_encrypt") }],
    ]);
    const plan2 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
    expect(await liveCa(APP)).toBe("lets_encrypt");
  });

  it('moves an older DigiCert certificate (issuer DigiCertInc) off digicert for ""', async () => {
    const id = await unstate("DigiCertInc");
    const file = await config([[APP, ""]]);
    const plan1 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
    expect(plan1.stdout).toContain("moves off digicert");
    await emu.clearRequests();
    expect((await runCli(emu, ["apply", "-c", file, "--auto-approve"])).code).toBe(0);
    expect((await emu.requests()).filter((r) => r.method !== "GET").map((r) => [r.path, r.body])).toEqual([
      [`/client/v4/zones/${ZONE.com}/custom_hostnames/${id}`, { ssl: await expectedSsl(APP, "") }],
    ]);
    expect((await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"])).code).toBe(0);
  });

  it("stops the zone (plan and drift exit 1, nothing written) when neither the answer nor the issuer tells", async () => {
    for (const issuer of [undefined, "Example Private CA"]) {
      await emu.reset();
      await unstate(issuer);
      const file = await config([[APP, "ssl_com"]]);
      const plan = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(1);
      expect(plan.stdout + plan.stderr).toContain(
        `custom hostname ${APP}: the API's answer states no certificate_authority and`,
      );
      expect(plan.stdout + plan.stderr).toContain("so zoneform cannot tell whether it is already ssl_com");
      expect((await runCli(emu, ["drift", "-c", file])).code).toBe(1);
      await emu.clearRequests();
      expect((await runCli(emu, ["apply", "-c", file, "--auto-approve"])).code).toBe(1);
      expect(await emu.calls({ writesOnly: true })).toEqual([]);
      // "" asks nothing that cannot be told: a warning, exit 0.
      const loose = await runCli(emu, ["plan", "-c", await config([[APP, ""]]), "--detailed-exitcode"]);
      expect(loose.code, loose.stdout + loose.stderr).toBe(0);
      expect(loose.stdout + loose.stderr).toContain(`custom hostname ${APP}: certificate authority not stated`);
    }
  });

  it("export and certificates show it the same way; the exported file plans no change", async () => {
    await unstate("GoogleTrustServices");
    const certs = await runCli(emu, ["certificates", "--zone", ZONE.com]);
    expect(certs.code, certs.stderr).toBe(0);
    expect(certs.stdout).toMatch(
      new RegExp(`${APP.replace(/\./g, "\\.")} +not stated \\(issued by GoogleTrustServices, so google\\) +active`),
    );
    const json = JSON.parse((await runCli(emu, ["certificates", "--zone", ZONE.com, "--format", "json"])).stdout);
    expect(json.zones[0].hostnames.find((h: { hostname: string }) => h.hostname === APP)).toMatchObject({
      certificate_authority: null,
      issuer: "GoogleTrustServices",
    });
    const out = `${await writeConfig("", "placeholder.yaml")}.export.yaml`;
    const exp = await runCli(emu, ["export", "--zone", ZONE.com, "--sections", "custom_hostnames", "--out", out]);
    expect(exp.code, exp.stderr).toBe(0);
    expect(exp.stderr).toContain(
      `custom hostname ${APP}: certificate authority not stated (issued by GoogleTrustServices, so google) in ` +
        "the API answer",
    );
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", out, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});

describe("a custom hostname without a certificate (no ssl in the answer)", () => {
  const BARE = "bare.acme-com.example";
  const BARE_ID = "0f1e2d3c-4b5a-4678-9abc-def012345678";
  const addBare = () =>
    emu
      .state()
      .zones.find((z) => z.id === ZONE.com)!
      .custom_hostnames.push({ id: BARE_ID, hostname: BARE, status: "active", created_at: "2025-05-01T00:00:00Z" });

  it("stops the zone when the file names a CA without a method, saying what to add; nothing written", async () => {
    addBare();
    const file = await config([[BARE, "google"]]);
    const plan = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    expect(plan.stdout + plan.stderr).toContain(
      `custom hostname ${BARE} has no certificate (the API's answer has no ssl object, so no certificate was ` +
        "ordered for it), so certificate_authority google cannot apply. To order one, add method: http, txt or " +
        "email under it in custom_hostnames",
    );
    expect((await runCli(emu, ["drift", "-c", file])).code).toBe(1);
    await emu.clearRequests();
    expect((await runCli(emu, ["apply", "-c", file, "--auto-approve"])).code).toBe(1);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });

  it("orders the certificate the file describes (method, CA): plan → apply → plan no changes", async () => {
    addBare();
    const file = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    name: example.com\n    custom_hostnames:\n` +
        `      - hostname: ${BARE}\n        certificate_authority: ssl_com\n        method: txt\n`,
    );
    const plan1 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
    expect(plan1.stdout).toContain("# order a certificate (validation method txt, certificate authority ssl_com)");
    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect((await emu.requests()).filter((r) => r.method !== "GET").map((r) => [r.method, r.path, r.body])).toEqual([
      [
        "PATCH",
        `/client/v4/zones/${ZONE.com}/custom_hostnames/${BARE_ID}`,
        { ssl: { method: "txt", type: "dv", certificate_authority: "ssl_com" } },
      ],
    ]);
    const plan2 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
    expect(plan2.stdout).toContain("No changes.");
  });
});

describe("the DCV method a file states", () => {
  it("changes a different live method with one PATCH of the whole ssl, then shows no changes", async () => {
    const file = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    name: example.com\n    custom_hostnames:\n` +
        `      - hostname: ${SHOP}\n        method: txt\n`,
    );
    const id = (await emu.api<Hostname[]>("GET", `zones/${ZONE.com}/custom_hostnames?hostname=${SHOP}`))[0]!.id;
    const plan1 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
    expect(plan1.stdout).toContain("# validation method http → txt");
    const { certificate_authority: _ca, ...ssl } = await expectedSsl(SHOP, "");
    await emu.clearRequests();
    expect((await runCli(emu, ["apply", "-c", file, "--auto-approve"])).code).toBe(0);
    // "" sends no CA: the hostname keeps the one it has (lets_encrypt).
    expect((await emu.requests()).filter((r) => r.method !== "GET").map((r) => [r.path, r.body])).toEqual([
      [`/client/v4/zones/${ZONE.com}/custom_hostnames/${id}`, { ssl: { ...ssl, method: "txt" } }],
    ]);
    expect((await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"])).code).toBe(0);
    expect(await liveCa(SHOP)).toBe("lets_encrypt");
  });
});
