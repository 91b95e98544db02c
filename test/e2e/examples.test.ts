// Every example validates; the top level of examples/ is one configuration; the reference file and
// each per-need example apply on a fresh emulator and then plan with no changes.
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli } from "../helpers/cli.js";

const EXAMPLES = resolve(import.meta.dirname, "../../examples");
const emu = TestEmulator.perFile();

const SECRETS = { AWS_KEY_ID: "AKIAIOSFODNN7EXAMPLE", AWS_SECRET: "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", DATADOG_API_KEY: "dd0123456789abcdef0123456789abcd" };

async function ownershipToken(zoneId: string, destination: string): Promise<string> {
  return (await emu.admin<{ token: string }>("GET", `/ownership/${zoneId}?destination=${encodeURIComponent(destination)}`)).token;
}

async function exampleDirs(): Promise<string[]> {
  const entries = await readdir(EXAMPLES, { withFileTypes: true });
  return entries.filter((e) => e.isDirectory() && e.name !== "ci").map((e) => e.name).sort();
}

async function applyAndReplan(config: string, env: Record<string, string> = {}): Promise<void> {
  const applied = await runCli(emu, ["apply", "-c", config, "--auto-approve"], { env });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  const again = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env });
  expect(again.code, again.stdout + again.stderr).toBe(0);
  expect(again.stdout).toContain("No changes.");
}

describe("examples", () => {
  it("has a directory per common need", async () => {
    expect(await exampleDirs()).toEqual(
      expect.arrayContaining(["custom-hostnames", "demo", "logpush-to-storage", "multi-zone-estate", "owasp-tuned", "strict-csp"]),
    );
  });

  it("validates the top level as one configuration, and every example on its own", async () => {
    const top = await runCli(undefined, ["validate", "-c", EXAMPLES], { env: { ...SECRETS, LOGPUSH_CHALLENGE: "x" } });
    expect(top.code, top.stderr).toBe(0);
    for (const target of ["minimal.yaml", "full.yaml", ...(await exampleDirs())]) {
      const r = await runCli(undefined, ["validate", "-c", join(EXAMPLES, target)], {
        env: { ...SECRETS, LOGPUSH_CHALLENGE: "x", DEMO_LOGS_TOKEN: "x" },
      });
      expect(r.code, `${target}: ${r.stderr}`).toBe(0);
    }
  });

  it("applies the full example (every section) on a fresh emulator, then plans no changes", async () => {
    const s3 = `s3://logs/http/{DATE}?region=us-east-1&access-key-id=${SECRETS.AWS_KEY_ID}&secret-access-key=${SECRETS.AWS_SECRET}`;
    await applyAndReplan(join(EXAMPLES, "full.yaml"), { ...SECRETS, LOGPUSH_CHALLENGE: await ownershipToken(ZONE.net, s3) });
  });

  it("applies the minimal, strict CSP, OWASP, custom hostname and multi-zone examples", async () => {
    for (const target of ["minimal.yaml", "strict-csp", "owasp-tuned", "custom-hostnames", "multi-zone-estate"]) {
      await emu.reset();
      await applyAndReplan(join(EXAMPLES, target));
    }
  });
});
