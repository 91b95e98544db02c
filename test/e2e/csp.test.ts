// `zoneform csp suggest` end to end: the directive built from the emulator's inventory, malicious hosts
// left out and listed, the calls made, and the YAML block pasted into a file and applied as it is.
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

describe("csp suggest", () => {
  it("builds script-src and connect-src from active, non-malicious items and lists the malicious hosts", async () => {
    const r = await runCli(emu, ["csp", "suggest", "--zone", ZONE.com]);
    expect(r.code, r.stderr).toBe(0);
    const scriptSrc = r.stdout.split("\n").find((l) => l.trim().startsWith("script-src"))!;
    expect(scriptSrc).toContain("'self'");
    expect(scriptSrc).toContain("https://cdnjs.cloudflare.com");
    for (const bad of ["jquery-cdn-update.com", "cdn-staticfiles.top", "analytics-sync.net"]) {
      expect(r.stdout.split("Left out")[0]).not.toContain(bad);
    }
    // Each host says which score made the verdict (real-answers.md "js_integrity_score threshold").
    expect(r.stdout).toMatch(
      /Left out, malicious[^\n]*\n(\s+\S+.*\n)*\s+jquery-cdn-update\.com\s+1 script\(s\), 0 connection\(s\): malware_score < 10; domain reported malicious \(Malware\)/,
    );
    expect(r.stdout).toMatch(/gstatic-cdn\.org\s+1 script\(s\), 0 connection\(s\): cryptomining_score < 10\n/);
    expect(r.stdout).toMatch(/ analytics-sync\.net\s+1 script\(s\), 0 connection\(s\): js_integrity_score < 10\n/);
    // Scored 30, malicious only under the older threshold of 50: allowed.
    expect(scriptSrc).toContain("https://cdn.segment.com");
    expect(r.stdout).toMatch(
      /collect\.analytics-sync\.net\s+0 script\(s\), 1 connection\(s\): domain reported malicious \(Command and Control\)/,
    );
    expect(await emu.calls()).toEqual([
      `GET zones/${ZONE.com}/page_shield/scripts`,
      `GET zones/${ZONE.com}/page_shield/connections`,
    ]);
    expect((await emu.requests()).map((q) => q.query)).toEqual([
      { status: "active", page: "1", per_page: "100" },
      { status: "active", page: "1", per_page: "100" },
    ]);
  });

  it("prints a YAML policy block that a file takes as it is, and that applies and then plans clean", async () => {
    const r = await runCli(emu, [
      "csp",
      "suggest",
      "--zone",
      ZONE.com,
      "--format",
      "yaml",
      "--description",
      "Suggested CSP",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# Left out, malicious:\n# {3}/);
    const [policy] = parse(r.stdout);
    expect(policy).toMatchObject({ description: "Suggested CSP", action: "log", enabled: true });
    expect(policy.expression).toBe('http.host in {"example.com" "shop.example.com" "www.example.com"}');
    expect(policy.value).toMatch(/^script-src 'self' .*; connect-src /);

    const indented = r.stdout
      .split("\n")
      .map((l) => (l ? `      ${l}` : l))
      .join("\n");
    const config = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${ZONE.com}\n    page_shield:\n      policies:\n${indented}`,
    );
    const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const live = await emu.api<Array<{ description: string; value: string }>>(
      "GET",
      `zones/${ZONE.com}/page_shield/policies`,
    );
    expect(live).toEqual([expect.objectContaining({ description: "Suggested CSP", value: policy.value })]);
    const plan = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
    expect(plan.code).toBe(0);
  });

  it("collapses many subdomains into a wildcard, and reads a large inventory page by page", async () => {
    await emu.admin("POST", "/inventory", {
      zone_id: ZONE.org,
      scripts: 2_000,
      connections: 1_000,
      cookies: 0,
      malicious_ratio: 0.01,
    });
    await emu.clearRequests();
    const r = await runCli(emu, ["csp", "suggest", "--zone", ZONE.org, "--format", "yaml"]);
    expect(r.code).toBe(0);
    const [policy] = parse(r.stdout);
    expect(policy.value).toContain("https://*.ingest.sentry.io");
    expect(policy.value).not.toMatch(/jquery-cdn-update|analytics-sync|cdn-staticfiles|gstatic-cdn/);
    const calls = await emu.calls();
    expect(calls.filter((c) => c.endsWith("/scripts")).length).toBeGreaterThanOrEqual(19);
    expect(calls.filter((c) => c.endsWith("/connections")).length).toBeGreaterThanOrEqual(9);

    const exact = await runCli(emu, [
      "csp",
      "suggest",
      "--zone",
      ZONE.org,
      "--format",
      "yaml",
      "--wildcard-threshold",
      "0",
    ]);
    expect(parse(exact.stdout)[0].value).not.toContain("*.");
  });

  it("limits to a host with --host, and refuses bad flags with exit 3", async () => {
    const r = await runCli(emu, [
      "csp",
      "suggest",
      "--zone",
      ZONE.com,
      "--host",
      "shop.example.com",
      "--format",
      "yaml",
    ]);
    expect(parse(r.stdout)[0].expression).toBe('http.host eq "shop.example.com"');
    expect((await emu.requests()).every((q) => q.query.hosts === "shop.example.com")).toBe(true);
    for (const argv of [
      ["csp", "suggest"],
      ["csp", "suggest", "--zone", ZONE.com, "--zone", ZONE.net],
      ["csp", "suggest", "--zone", ZONE.com, "--format", "json"],
      ["csp", "suggest", "--zone", ZONE.com, "--action", "block"],
    ]) {
      expect((await runCli(emu, argv)).code, argv.join(" ")).toBe(3);
    }
  });
});
