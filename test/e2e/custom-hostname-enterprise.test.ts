// Choosing a custom hostname's CA needs the Enterprise plan (the shared spec real-answers.md, "Changes
// since the seed documents", custom hostname CA: error 1459 otherwise; message as external-dns #5435
// quotes it; terraform-provider-cloudflare #3898 met it re-sending the hostname's own CA). On a
// Business zone: plan → apply fails on the PATCH with the change to make in the file (naming the
// hostname and the key) and Cloudflare's page for it → the file changed as said → plan with no changes.
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const Z = ZONE.net; // the seed's example.net is on the Business plan
const APP = "app.globex-net.example"; // live CA google, method txt
const EDIT_PAGE = "https://developers.cloudflare.com/api/resources/custom_hostnames/methods/edit/";

const config = (ca: string) =>
  writeConfig(
    `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.net\n    custom_hostnames:\n      - hostname: ` +
      `${APP}\n        certificate_authority: ${JSON.stringify(ca)}\n`,
  );

interface Hostname {
  id: string;
  ssl: Record<string, unknown>;
}
const live = async () => (await emu.api<Hostname[]>("GET", `zones/${Z}/custom_hostnames?hostname=${APP}`))[0]!;

describe("a CA named on a zone not on Enterprise", () => {
  it('the emulator answers 1459 with its documentation_url, even for the hostname\'s own CA; "" passes', async () => {
    const h = await live();
    const own = await emu.call("PATCH", `zones/${Z}/custom_hostnames/${h.id}`, {
      ssl: { method: "txt", type: "dv", certificate_authority: "google" },
    });
    expect(own.status).toBe(400);
    expect(own.body.errors).toEqual([
      {
        code: 1459,
        message: expect.stringMatching(/^Certificate Authority selection is only available on an Enterprise plan\./),
        documentation_url: EDIT_PAGE,
        source: { pointer: "/ssl/certificate_authority" },
      },
    ]);
    expect((await live()).ssl).toEqual(h.ssl);
  });

  it("apply says what to change in the file; after that change plan shows nothing to do", async () => {
    const before = await live();
    const file = await config("ssl_com");
    const plan1 = await runCli(emu, ["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
    expect(plan1.stdout).toContain('~ certificate_authority: "google" → "ssl_com"');

    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", file, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(1);
    const out = apply.stdout + apply.stderr;
    expect(out).toContain("apply failed before any change was made; nothing was written.");
    expect(out).toContain(`[1459] at /ssl/certificate_authority; see ${EDIT_PAGE})`);
    expect(out).toContain(
      `choosing a certificate authority needs an Enterprise plan (Cloudflare error 1459), and this zone is ` +
        `not on it: ` +
        `in the file, under custom_hostnames, remove certificate_authority: ssl_com from hostname ${APP} ` +
        `(or set it to "") to leave the CA to Cloudflare, then plan again`,
    );
    const writes = (await emu.requests())
      .filter((r) => r.method !== "GET")
      .map((r) => [r.method, r.path.replace(/^\/client\/v4\//, ""), r.status, r.body]);
    const { method, type, bundle_method, wildcard, settings } = before.ssl;
    expect(writes).toEqual([
      [
        "PATCH",
        `zones/${Z}/custom_hostnames/${before.id}`,
        400,
        { ssl: { bundle_method, wildcard, settings, method, type, certificate_authority: "ssl_com" } },
      ],
    ]);
    expect((await live()).ssl).toEqual(before.ssl);

    const fixed = await config("");
    const plan2 = await runCli(emu, ["plan", "-c", fixed, "--detailed-exitcode"]);
    expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
    expect(plan2.stdout).toContain("No changes.");
  });
});
