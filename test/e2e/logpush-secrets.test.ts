// No secret ever leaves zoneform: known credential values are set in the environment, every command
// that shows Logpush jobs is run (validate, plan in every format, a saved plan, apply, drift, the
// challenge command, errors, each with and without --verbose), and every byte of stdout, stderr and
// the plan file is scanned for the values, raw and URL-encoded. Live values (a rotated key still in
// the live job) must stay hidden too.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig, type CliResult } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const Z = ZONE.com;
const S3_BASE = "s3://secure-logs/http/{DATE}?region=us-east-1";

const SECRETS = {
  AWS_KEY_ID: "AKIAQWERTYUIOPEXAMPLE",
  AWS_SECRET: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYzzSECRET",
  SPLUNK_AUTH: "Splunk%20splunk-hec-token-0a1b2c3d",
  DATADOG_KEY: "datadog-api-key-9z8y7x6w",
  HTTPS_AUTH: "Bearer%20https-auth-value-5e6f",
  R2_KEY_ID: "r2-access-key-id-3c4d",
  R2_SECRET: "r2-secret-access-key-77aa",
};
/** A previous key, still in the live job when the file has moved on. */
const OLD_SECRET = "old-live-secret-value-31337";

function configText(env: { challenge: boolean; bucket?: string }): string {
  const bucket = env.bucket ?? "secure-logs";
  return `version: 1
zones:
  - zone_id: ${Z}
    name: example.com
    logs:
      logpush_jobs:
        - name: http-to-s3
          dataset: http_requests
          destination_conf: "s3://${bucket}/http/{DATE}?region=us-east-1&access-key-id=\${env:AWS_KEY_ID}&secret-access-key=\${env:AWS_SECRET}"
${env.challenge ? "          ownership_challenge: ${env:LOGPUSH_CHALLENGE}\n" : ""}          filter:
            where: { key: ClientRequestHost, operator: eq, value: example.com }
        - name: fw-to-splunk
          dataset: firewall_events
          destination_conf: "splunk://splunk.example.net:8088/services/collector/raw?channel=0d1f&sourcetype=cloudflare:json&header_Authorization=\${env:SPLUNK_AUTH}"
        - name: http-to-datadog
          dataset: http_requests
          destination_conf: "datadog://http-intake.logs.datadoghq.eu/api/v2/logs?ddsource=cloudflare&header_DD-API-KEY=\${env:DATADOG_KEY}"
        - name: http-to-https
          dataset: http_requests
          destination_conf: "https://logs.example.net/ingest?header_Authorization=\${env:HTTPS_AUTH}&tags=edge"
        - name: http-to-r2
          dataset: http_requests
          destination_conf: "r2://logs/{DATE}?account-id=0123456789abcdef0123456789abcdef&access-key-id=\${env:R2_KEY_ID}&secret-access-key=\${env:R2_SECRET}"
`;
}

async function challengeToken(): Promise<string> {
  const r = await emu.admin<{ token: string }>("GET", `/ownership/${Z}?destination=${encodeURIComponent(S3_BASE)}`);
  return r.token;
}

/** Every secret, as set, URL-encoded, decoded, and its token alone (without a `Splunk ` / `Bearer ` scheme). */
function forms(values: string[]): string[] {
  const all = values.flatMap((v) => {
    const decoded = decodeURIComponent(v);
    const token = decoded.replace(/^(Splunk|Bearer) /, "");
    return [
      v,
      decoded,
      token,
      encodeURIComponent(v),
      encodeURIComponent(decoded),
      encodeURIComponent(decoded).replace(/%20/g, "+"),
    ];
  });
  return [...new Set(all)];
}

function expectNoSecrets(label: string, text: string, values: string[]): void {
  for (const v of forms(values)) {
    expect(text.includes(v), `${label} shows a secret (${v.slice(0, 4)}…)`).toBe(false);
  }
}

describe("Logpush secrets never appear in any output", () => {
  it(
    "hides credentials and the ownership token in validate, plan (all formats), saved plans, apply, drift " +
      "and --verbose",
    async () => {
      const token = await challengeToken();
      const env = { ...SECRETS, LOGPUSH_CHALLENGE: token };
      const values = [...Object.values(SECRETS), token, OLD_SECRET];
      const dir = await tempDir();
      const cfg = await writeConfig(configText({ challenge: true }), "zoneform.yaml", dir);
      const planFile = join(dir, "plan.json");
      const outputs: Array<[string, CliResult]> = [];
      const run = async (label: string, argv: string[], expectCode?: number) => {
        for (const verbose of [false, true]) {
          const r = await runCli(emu, verbose ? [...argv, "--verbose"] : argv, { env });
          if (expectCode !== undefined && !verbose) expect(r.code, `${label}: ${r.stdout}${r.stderr}`).toBe(expectCode);
          outputs.push([`${label}${verbose ? " --verbose" : ""}`, r]);
        }
      };

      await run("validate", ["validate", "-c", cfg], 0);
      await run("plan", ["plan", "-c", cfg], 0);
      await run("plan json", ["plan", "-c", cfg, "--format", "json"], 0);
      await run("plan markdown", ["plan", "-c", cfg, "--format", "markdown"], 0);
      await run("drift", ["drift", "-c", cfg], 2);
      const saved = await runCli(emu, ["plan", "-c", cfg, "--out", planFile, "--verbose"], { env });
      expect(saved.code, saved.stderr).toBe(0);
      outputs.push(["plan --out", saved]);
      const fileText = await readFile(planFile, "utf8");
      expectNoSecrets("the plan file", fileText, values);
      expect(fileText).toContain("${env:AWS_SECRET}");
      expect(fileText).toContain("${env:LOGPUSH_CHALLENGE}");
      expect(fileText).toContain("s3://secure-logs/http/{DATE}?region=us-east-1");

      const applied = await runCli(emu, ["apply", planFile, "--verbose"], { env });
      expect(applied.code, applied.stderr).toBe(0);
      outputs.push(["apply plan.json", applied]);
      await run("plan after apply", ["plan", "-c", cfg, "--detailed-exitcode"], 0);
      await run("drift after apply", ["drift", "-c", cfg], 0);

      // Someone rotated the S3 key by hand: the live job now holds a value the file does not know.
      const jobs = await emu.api<Array<{ id: number; name: string; destination_conf: string }>>(
        "GET",
        `zones/${Z}/logpush/jobs`,
      );
      const s3 = jobs.find((j) => j.name === "http-to-s3")!;
      await emu.api("PUT", `zones/${Z}/logpush/jobs/${s3.id}`, {
        destination_conf: s3.destination_conf
          .replace(encodeURIComponent(SECRETS.AWS_SECRET), OLD_SECRET)
          .replace(SECRETS.AWS_SECRET, OLD_SECRET),
        ownership_challenge: token,
      });
      await run("plan after rotation", ["plan", "-c", cfg, "--detailed-exitcode"], 2);
      await run("plan json after rotation", ["plan", "-c", cfg, "--format", "json"], 0);
      await run("plan markdown after rotation", ["plan", "-c", cfg, "--format", "markdown"], 0);
      await run("drift after rotation", ["drift", "-c", cfg], 2);
      const rotated = outputs.find(([l]) => l === "plan after rotation")![1];
      expect(rotated.stdout).toContain("credentials in destination_conf differ");
      const reapplied = await runCli(emu, ["apply", "-c", cfg, "--auto-approve", "--verbose"], { env });
      expect(reapplied.code, reapplied.stderr).toBe(0);
      outputs.push(["apply -c", reapplied]);

      // Errors: a job that needs a challenge without one, and a destination the API rejects.
      const noChallenge = await writeConfig(configText({ challenge: false, bucket: "other-bucket" }));
      await run("plan without challenge", ["plan", "-c", noChallenge], 1);
      const bad = await writeConfig(configText({ challenge: true, bucket: "invalid-bucket" }));
      // Its destination holds secrets: Cloudflare checks it at apply, never before the review.
      await run("plan with a bad destination", ["plan", "-c", bad], 0);
      await run("apply with a bad destination", ["apply", "-c", bad, "--auto-approve"], 1);
      await run(
        "challenge",
        [
          "logpush",
          "challenge",
          "--zone",
          Z,
          "--destination",
          "s3://secure-logs/http/{DATE}?region=us-east-1&secret-access-key=${env:AWS_SECRET}",
        ],
        0,
      );

      for (const [label, r] of outputs) {
        expectNoSecrets(`${label} stdout`, r.stdout, values);
        expectNoSecrets(`${label} stderr`, r.stderr, values);
      }
      // What stays visible for a reviewer: the bucket, path and region, and the marker.
      const plan = outputs.find(([l]) => l === "plan")![1];
      expect(plan.stdout).toContain(
        "s3://secure-logs/http/{DATE}?region=us-east-1&access-key-id=(sensitive)&secret-access-key=(sensitive)",
      );
      expect(plan.stdout).toContain("ownership_challenge: (sensitive)");
      expect(plan.stdout).toContain("https://logs.example.net/ingest?header_Authorization=(sensitive)&tags=edge");
      // The API received the real values: redaction is only on what zoneform shows.
      const log = await emu.requests();
      expect(JSON.stringify(log)).toContain(SECRETS.DATADOG_KEY);
    },
  );

  it("the challenge command suggested for a job never shows the destination's user info", async () => {
    const env = { S3_USER: "AKIAUSERINFOEXAMPLE", S3_PASS: "userinfo-pass-2b7e" };
    const dir = await tempDir("zoneform-userinfo-");
    const cfg = await writeConfig(
      `version: 1
zones:
  - zone_id: ${Z}
    name: example.com
    logs:
      logpush_jobs:
        - name: http-to-s3
          dataset: http_requests
          destination_conf: "s3://\${env:S3_USER}:\${env:S3_PASS}@userinfo-logs/http/{DATE}?region=us-east-1"
`,
      "zoneform.yaml",
      dir,
    );
    const plan = await runCli(emu, ["plan", "-c", cfg], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    expect(plan.stderr).toContain(
      `Run: zoneform logpush challenge --zone ${Z} --destination 's3://userinfo-logs/http/{DATE}?region=us-east-1'`,
    );
    expectNoSecrets("plan", plan.stdout + plan.stderr, Object.values(env));
  });
});
