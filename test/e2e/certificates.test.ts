// `zoneform certificates` against the emulator: every custom hostname of the zones with its CA,
// lets_encrypt ones flagged with the advice per certificate type; a report, so exit 0 either way.
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

describe("zoneform certificates", () => {
  it("lists each hostname's CA, SSL status and method, flags lets_encrypt, and exits 0", async () => {
    await emu.clearRequests();
    const r = await runCli(emu, ["certificates", "--zone", ZONE.com, "--zone", ZONE.org]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`# zone ${ZONE.com}: 5 custom hostname(s)`);
    expect(r.stdout).toContain(`# zone ${ZONE.org}: 3 custom hostname(s)`);
    expect(r.stdout).toMatch(/!\s+shop\.acme-com\.example\s+lets_encrypt\s+active\s+http/);
    // A default-CA hostname reads back the CA Cloudflare picked; an uploaded certificate has none.
    expect(r.stdout).toMatch(/\s{2}api\.umbrella-com\.example\s+google\s+active\s+txt/);
    expect(r.stdout).toMatch(/\s{2}secure\.hooli-com\.example\s+uploaded\s+active/);
    expect(r.stdout).toMatch(/! 2 custom hostname\(s\) use digicert, which Cloudflare no longer issues from/);
    expect(r.stdout).toMatch(/2 custom hostname\(s\) still use lets_encrypt/);
    expect(r.stdout).toMatch(/Custom hostname certificates are not changed automatically/);
    expect(r.stdout).toMatch(/Universal certificates: switched to a more compatible CA automatically/);
    const calls = await emu.requests();
    expect(calls.map((c) => [c.method, c.path.replace(/^\/client\/v4\//, ""), c.query.per_page])).toEqual(
      expect.arrayContaining([
        ["GET", `zones/${ZONE.com}/custom_hostnames`, "50"],
        ["GET", `zones/${ZONE.org}/custom_hostnames`, "50"],
      ]),
    );
    expect(calls).toHaveLength(2);
  });

  it("pages through a long list and says so when nothing is flagged", async () => {
    const state = await emu.admin<{ zones: Array<{ id: string; custom_hostnames: Array<Record<string, any>> }> }>(
      "GET",
      "/state",
    );
    const zone = state.zones.find((z) => z.id === ZONE.net)!;
    const template = zone.custom_hostnames[1]!;
    zone.custom_hostnames = Array.from({ length: 55 }, (_, i) => ({
      ...template,
      id: (i + 1).toString(16).padStart(32, "b"),
      hostname: `h${i}.bulk.example`,
      ssl: { ...template.ssl, certificate_authority: "google" },
    }));
    await emu.admin("PUT", "/state", state);
    await emu.clearRequests();
    const r = await runCli(emu, ["certificates", "--zone", ZONE.net]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`# zone ${ZONE.net}: 55 custom hostname(s)`);
    expect(r.stdout).toContain("by CA: google 55");
    expect(r.stdout).toMatch(/^No custom hostname uses lets_encrypt/m);
    expect((await emu.requests()).map((c) => c.query.page)).toEqual(["1", "2"]);
  });

  it("prints JSON with --format json", async () => {
    const r = await runCli(emu, ["certificates", "--zone", ZONE.com, "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.flagged).toBe(1);
    expect(report.retiring_certificate_authority).toBe("lets_encrypt");
    expect(report.zones[0].hostnames[0]).toMatchObject({
      hostname: "shop.acme-com.example",
      certificate_authority: "lets_encrypt",
      flagged: true,
      method: "http",
    });
    expect(report.advice.custom_hostname).toMatch(/not changed automatically/);
  });

  it("needs --zone, as a zone id or name (exit 3), and reports API errors (exit 1)", async () => {
    expect((await runCli(emu, ["certificates"])).code).toBe(3);
    expect((await runCli(emu, ["certificates", "--zone", "example.com/x"])).code).toBe(3);
    const missing = await runCli(emu, ["certificates", "--zone", "f".repeat(32)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: /);
  });
});
