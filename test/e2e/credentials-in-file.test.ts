// A Cloudflare credential pasted into the file instead of `${env:NAME}` (formats: real-answers.md
// "token formats", Cloudflare docs "Token formats") is an error at its line (exit 3) that says where
// it belongs, and `plan` refuses the file before any call; a plan saved from a file that takes its
// secrets from the environment holds neither the API token nor any `${env:}` value, applies, and
// plans clean afterwards.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TOKEN, TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const Z = ZONE.com;
const BODY = "Xy7kP2mQ9vR4tL8nB3cD6fG1hJ5sW0aZ_eU-iO2p";
const PASTED = `cfut_${BODY}a1B2c3`;
const OLD_TOKEN = "Xy7kP2mQ9vR4tL8nB3cD6fG1hJ5sW0aZ2eU4iO2p";
const ADVICE = "move it into an environment variable and reference it as ${env:NAME}";

describe("credentials written in the file", () => {
  it("validate: each is an error at its line, never echoed; exit 3", async () => {
    const cfg = await writeConfig(`version: 1
zones:
  - zone_id: ${Z}
    page_shield:
      policies:
        - description: "rotated ${PASTED} on Monday"
          action: log
          expression: http.host eq "example.com"
          value: script-src 'self'
    logs:
      logpush_jobs:
        - name: to-https
          dataset: http_requests
          destination_conf: "https://logs.example.net/ingest/${OLD_TOKEN}?tags=edge"
          ownership_challenge: \${env:CHALLENGE}
`);
    const r = await runCli(emu, ["validate", "-c", cfg], { env: { CHALLENGE: "x" } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `${cfg}:6:24  /zones/0/page_shield/policies/0/description  this value looks like a Cloudflare API ` +
        `token (cfut_/cfat_) written in the file: ${ADVICE}`,
    );
    expect(r.stderr).toContain(
      `${cfg}:14:29  /zones/0/logs/logpush_jobs/0/destination_conf  this value looks like a Cloudflare API ` +
        `token written in the file: ${ADVICE}`,
    );
    expect(r.stdout + r.stderr).not.toContain(BODY);
    expect(r.stdout + r.stderr).not.toContain(OLD_TOKEN);

    const plan = await runCli(emu, ["plan", "-c", cfg], { env: { CHALLENGE: "x" } });
    expect(plan.code).toBe(3);
    expect(await emu.calls()).toEqual([]);
  });

  it("a reference is what the file should say: the same values from the environment pass", async () => {
    const cfg = await writeConfig(`version: 1
zones:
  - zone_id: ${Z}
    logs:
      logpush_jobs:
        - name: to-https
          dataset: http_requests
          destination_conf: "https://logs.example.net/ingest?header_Authorization=\${env:LOG_AUTH}&tags=edge"
`);
    const r = await runCli(emu, ["validate", "-c", cfg, "--require-env"], { env: { LOG_AUTH: `Bearer%20${PASTED}` } });
    expect(r.code, r.stderr).toBe(0);
  });

  it(
    "plan --out never writes the API token or an env value; the saved plan applies and the zone then " + "plans clean",
    async () => {
      const env = { LOG_AUTH: `Bearer%20${PASTED}`, CSP_NONCE_HOST: `cdn-${OLD_TOKEN}.example.net` };
      const cfg = await writeConfig(`version: 1
zones:
  - zone_id: ${Z}
    page_shield:
      policies:
        - description: CSP
          action: log
          expression: http.host eq "example.com"
          value: "script-src 'self' https://\${env:CSP_NONCE_HOST}"
    logs:
      logpush_jobs:
        - name: to-https
          dataset: http_requests
          destination_conf: "https://logs.example.net/ingest?header_Authorization=\${env:LOG_AUTH}&tags=edge"
`);
      await emu.clearRequests();
      const planFile = join(await tempDir(), "plan.json");
      const saved = await runCli(emu, ["plan", "-c", cfg, "--out", planFile], { env });
      expect(saved.code, saved.stderr).toBe(0);
      const text = await readFile(planFile, "utf8");
      for (const secret of [TOKEN, PASTED, BODY, OLD_TOKEN, encodeURIComponent(env.LOG_AUTH)])
        expect(text, secret).not.toContain(secret);
      expect(text).toContain("${env:LOG_AUTH}");
      expect(text).toContain("${env:CSP_NONCE_HOST}");

      const applied = await runCli(emu, ["apply", planFile], { env });
      expect(applied.code, applied.stderr).toBe(0);
      const writes = await emu.calls({ writesOnly: true });
      // The destination holds a secret: Cloudflare checks it once, at apply, before the writes.
      expect(writes).toEqual([
        `POST zones/${Z}/logpush/validate/destination`,
        `POST zones/${Z}/page_shield/policies`,
        `POST zones/${Z}/logpush/jobs`,
      ]);
      const again = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env });
      expect(again.code, again.stdout).toBe(0);
      expect(again.stdout + again.stderr).not.toContain(BODY);
    },
  );
});
