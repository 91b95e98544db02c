// `zoneform export` end to end: configure zones with every section through zoneform itself (apply of
// examples/full.yaml, secrets from the environment), export them, and plan with the exported file:
// no changes. Also: only the asked sections are written, secrets never reach the file, export only
// reads, and a zone configured by hand (dashboard-style) round-trips too.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { ACCOUNT, TestEmulator, ZONE, runCli, tempDir } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const FULL = resolve(import.meta.dirname, "../../examples/full.yaml");
const SECRETS = {
  AWS_KEY_ID: "AKIAIOSFODNN7EXAMPLE",
  AWS_SECRET: "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
  DATADOG_API_KEY: "dd0123456789abcdef0123456789abcd",
};
const S3 = `s3://logs/http/{DATE}?region=us-east-1&access-key-id=${SECRETS.AWS_KEY_ID}&secret-access-key=${SECRETS.AWS_SECRET}`;

/** What examples/full.yaml needs: the secrets and the ownership token the emulator's bucket holds. */
async function fullEnv(): Promise<Record<string, string>> {
  const { token } = await emu.admin<{ token: string }>(
    "GET",
    `/ownership/${ZONE.net}?destination=${encodeURIComponent(S3)}`,
  );
  return { ...SECRETS, LOGPUSH_CHALLENGE: token };
}

/** examples/full.yaml itself: the round trip starts from the reference example. */
async function fullConfig(): Promise<string> {
  return FULL;
}

/** The same secrets under the names export gave them. */
const exportedEnv = {
  ZONEFORM_HTTP_TO_S3_ACCESS_KEY_ID: SECRETS.AWS_KEY_ID,
  ZONEFORM_HTTP_TO_S3_SECRET_ACCESS_KEY: SECRETS.AWS_SECRET,
  ZONEFORM_FIREWALL_TO_DATADOG_HEADER_DD_API_KEY: SECRETS.DATADOG_API_KEY,
};

describe("export round trip", () => {
  it("exports zones configured with every section; plan with the export shows no changes", async () => {
    const env = await fullEnv();
    const applied = await runCli(emu, ["apply", "-c", await fullConfig(), "--auto-approve"], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);

    const dir = await tempDir();
    const out = join(dir, "exported.yaml");
    // zoneform installed in the project: the file points editors at its draft-07 schema, relatively.
    await mkdir(join(dir, "node_modules", "zoneform", "schemas"), { recursive: true });
    await writeFile(join(dir, "node_modules", "zoneform", "schemas", "zoneform.schema.draft-07.json"), "{}\n");
    await emu.clearRequests();
    const exported = await runCli(emu, [
      "export",
      "--zone",
      ZONE.net,
      "--zone",
      ZONE.org,
      "--account-id",
      ACCOUNT,
      "--out",
      out,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect((await emu.calls({ writesOnly: true })).filter((c) => !c.includes("/validate"))).toEqual([]);
    for (const name of Object.keys(exportedEnv)) expect(exported.stderr).toContain(name);
    expect(exported.stderr).toContain("no ownership_challenge");

    const text = await readFile(out, "utf8");
    expect(text).toMatch(
      /^# yaml-language-server: \$schema=\.\/node_modules\/zoneform\/schemas\/zoneform\.schema\.draft-07\.json\n# Exported by zoneform /,
    );
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
    expect(text).toContain("secret-access-key=${env:ZONEFORM_HTTP_TO_S3_SECRET_ACCESS_KEY}");

    const doc = parse(text);
    expect(doc.account_id).toBe(ACCOUNT);
    const net = doc.zones[0];
    expect(net.zone_id).toBe(ZONE.net);
    expect(net.page_shield).toMatchObject({
      enabled: true,
      use_cloudflare_reporting_endpoint: true,
      use_connection_url_path: false,
    });
    expect(net.page_shield.policies.map((p: { description: string }) => p.description).sort()).toEqual([
      "Checkout allow-list",
      "Report everything else",
    ]);
    expect(net.waf).toEqual({
      owasp: { enabled: true, paranoia_level: 2, score_threshold: "medium", action: "managed_challenge" },
      cloudflare_managed: { enabled: true },
    });
    expect(net.logs.custom_fields).toEqual({
      request_headers: ["user-agent", "cf-ray", "x-request-id"],
      response_headers: ["cache-control"],
      cookies: ["__Session"],
    });
    const s3 = net.logs.logpush_jobs.find((j: { name: string }) => j.name === "http-to-s3");
    expect(s3).toMatchObject({
      dataset: "http_requests",
      max_upload_records: 1000,
      output_options: { timestamp_format: "rfc3339", sample_rate: 0.1 },
    });
    expect(s3).not.toHaveProperty("ownership_challenge");
    expect(s3.filter.where.and).toHaveLength(3);
    // No CA is pinned (a default-CA hostname reads back the CA Cloudflare picked). A hostname on
    // digicert is left out: a file cannot state digicert (validate refuses it) and "" would move it,
    // so the round trip plans clean; the warning says how to move it.
    expect(net.custom_hostnames).toEqual([
      { hostname: "api.umbrella-net.example" },
      { hostname: "app.globex-net.example" },
      { hostname: "shop.acme-net.example" },
    ]);
    expect(exported.stderr).toContain(
      `custom hostname portal.initech-net.example is on digicert, which Cloudflare no longer offers`,
    );
    expect(exported.stderr).toContain(`add "- hostname: portal.initech-net.example" under custom_hostnames`);
    expect(text).not.toContain("digicert");
    const org = doc.zones[1];
    expect(org.waf).toEqual({
      owasp: { enabled: true, paranoia_level: 1, score_threshold: 30, action: "log" },
      cloudflare_managed: { enabled: true, action: "log" },
    });
    expect(org.logs.logpush_jobs).toEqual([]);

    const plan = await runCli(emu, ["plan", "-c", out, "--detailed-exitcode"], { env: exportedEnv });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain("No changes.");
  });

  it("exports every section of several zones with --defaults: plans clean, and merges back to the plain export", async () => {
    const env = await fullEnv();
    const applied = await runCli(emu, ["apply", "-c", await fullConfig(), "--auto-approve"], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const dir = await tempDir();
    const zones = ["--zone", ZONE.net, "--zone", ZONE.org, "--zone", ZONE.com, "--account-id", ACCOUNT];
    const shared = join(dir, "shared.yaml");
    const plain = join(dir, "plain.yaml");
    expect((await runCli(emu, ["export", ...zones, "--defaults", "--out", shared])).code).toBe(0);
    expect((await runCli(emu, ["export", ...zones, "--out", plain])).code).toBe(0);
    const doc = parse(await readFile(shared, "utf8"));
    // Something is shared, and nothing that names one zone or one of its objects.
    expect(Object.keys(doc.defaults ?? {}).length).toBeGreaterThan(0);
    for (const key of ["zone_id", "name", "custom_hostnames"]) expect(doc.defaults).not.toHaveProperty(key);
    expect(JSON.stringify(doc.defaults)).not.toMatch(/"id":/);

    const plan = await runCli(emu, ["plan", "-c", shared, "--detailed-exitcode"], { env: exportedEnv });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain("No changes.");
    const merged = await runCli(undefined, ["validate", "-c", shared, "--show-merged"], { env: exportedEnv });
    expect(merged.code, merged.stderr).toBe(0);
    expect(parse(merged.stdout).zones).toEqual(parse(await readFile(plain, "utf8")).zones);
  });

  it("round-trips a zone changed by hand: disabled policies, a job without upload limits, a CA moved", async () => {
    await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
      description: "Made in the dashboard",
      action: "log",
      expression: 'http.host eq "example.com"',
      value: "script-src 'self' https://cdnjs.cloudflare.com",
      enabled: false,
    });
    await emu.api("PUT", `zones/${ZONE.com}/page_shield`, { enabled: true, use_connection_url_path: true });
    const job = await emu.api<{ id: number }>("POST", `zones/${ZONE.com}/logpush/jobs`, {
      name: "to-https",
      dataset: "http_requests",
      destination_conf: "https://logs.example.com/push?header_Authorization=Bearer%20abc123xyz&tag=edge",
      output_options: { field_names: ["RayID", "ClientIP"], output_type: "csv" },
      filter: '{"where":{"key":"ClientRequestHost","operator":"eq","value":"example.com"}}',
      enabled: false,
    });
    expect(job.id).toBeDefined();
    const dir = await tempDir();
    const out = join(dir, "com.yaml");
    const r = await runCli(emu, [
      "export",
      "--zone",
      ZONE.com,
      "--out",
      out,
      "--sections",
      "page_shield,logpush,custom_hostnames",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(out, "utf8");
    expect(text).not.toContain("abc123xyz");
    expect(text).toContain("header_Authorization=${env:ZONEFORM_TO_HTTPS_HEADER_AUTHORIZATION}&tag=edge");
    const zone = parse(text).zones[0];
    expect(Object.keys(zone)).toEqual(["zone_id", "name", "page_shield", "logs", "custom_hostnames"]);
    expect(zone.logs).not.toHaveProperty("custom_fields");
    expect(zone.page_shield.policies).toEqual([
      {
        description: "Made in the dashboard",
        action: "log",
        expression: 'http.host eq "example.com"',
        value: "script-src 'self' https://cdnjs.cloudflare.com",
        enabled: false,
      },
    ]);
    expect(zone.logs.logpush_jobs[0]).toEqual({
      name: "to-https",
      dataset: "http_requests",
      destination_conf:
        "https://logs.example.com/push?header_Authorization=${env:ZONEFORM_TO_HTTPS_HEADER_AUTHORIZATION}&tag=edge",
      enabled: false,
      filter: { where: { key: "ClientRequestHost", operator: "eq", value: "example.com" } },
      output_options: { field_names: ["RayID", "ClientIP"], output_type: "csv" },
    });
    const plan = await runCli(emu, ["plan", "-c", out, "--detailed-exitcode"], {
      env: { ZONEFORM_TO_HTTPS_HEADER_AUTHORIZATION: "Bearer%20abc123xyz" },
    });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it("exports an untouched seed zone to stdout with the sections asked for only, and it plans clean", async () => {
    await emu.clearRequests();
    const r = await runCli(emu, ["export", "--zone", ZONE.dev, "--sections", "page_shield,custom_hostnames"]);
    expect(r.code, r.stderr).toBe(0);
    expect(await emu.calls()).toEqual(
      expect.arrayContaining([
        `GET zones/${ZONE.dev}`,
        `GET zones/${ZONE.dev}/page_shield`,
        `GET zones/${ZONE.dev}/page_shield/policies`,
        `GET zones/${ZONE.dev}/custom_hostnames`,
      ]),
    );
    expect(await emu.calls()).toHaveLength(4);
    const doc = parse(r.stdout);
    expect(doc).toEqual({
      version: 1,
      zones: [
        {
          zone_id: ZONE.dev,
          name: "example.dev",
          page_shield: expect.objectContaining({ enabled: false, policies: [] }),
          custom_hostnames: expect.any(Array),
        },
      ],
    });
    const cfg = join(await tempDir(), "dev.yaml");
    await import("node:fs/promises").then((fs) => fs.writeFile(cfg, r.stdout));
    const plan = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it("refuses bad flags with exit 3, and fails with exit 1 naming the section when a read fails", async () => {
    for (const argv of [
      ["export"],
      ["export", "--zone", ZONE.com, "--sections", "dns"],
      ["export", "--zone", ZONE.com, "--account-id", "acme"],
    ]) {
      const r = await runCli(emu, argv);
      expect(r.code, argv.join(" ")).toBe(3);
    }
    await emu.admin("POST", "/faults", { path: "custom_hostnames", status: 403, code: 9109, count: 10 });
    const r = await runCli(emu, ["export", "--zone", ZONE.com, "--sections", "custom_hostnames"]);
    await emu.admin("DELETE", "/faults");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("reading custom_hostnames failed");
    expect(r.stdout).toBe("");
  });
});
