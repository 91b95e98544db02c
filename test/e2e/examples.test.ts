// Every example validates; the top level of examples/ is one configuration; the reference file and
// each per-need example apply on a fresh emulator and then plan with no changes.
import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli } from "../helpers/cli.js";

const EXAMPLES = resolve(import.meta.dirname, "../../examples");
const emu = TestEmulator.perFile();

const SECRETS = {
  AWS_KEY_ID: "AKIAIOSFODNN7EXAMPLE",
  AWS_SECRET: "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
  DATADOG_API_KEY: "dd0123456789abcdef0123456789abcd",
};

async function ownershipToken(zoneId: string, destination: string): Promise<string> {
  return (
    await emu.admin<{ token: string }>("GET", `/ownership/${zoneId}?destination=${encodeURIComponent(destination)}`)
  ).token;
}

async function exampleDirs(): Promise<string[]> {
  const entries = await readdir(EXAMPLES, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && e.name !== "ci")
    .map((e) => e.name)
    .sort();
}

async function applyAndReplan(config: string, env: Record<string, string> = {}): Promise<void> {
  const applied = await runCli(emu, ["apply", "-c", config, "--auto-approve"], { env });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  const again = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env });
  expect(again.code, again.stdout + again.stderr).toBe(0);
  expect(again.stdout).toContain("No changes.");
}

/** Every YAML file of the examples (not the CI recipes), as paths relative to examples/. */
async function exampleFiles(): Promise<string[]> {
  const entries = await readdir(EXAMPLES, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath, e.name).slice(EXAMPLES.length + 1))
    .filter((f) => !f.startsWith("ci/"))
    .sort();
}

describe("examples", () => {
  it("are valid under the draft-07 schema editors use, with ajv's draft-07 class", async () => {
    // The editor's view: the file as written (${env:…} references not replaced), checked by the
    // schema the `$schema=` lines name, with ajv's default (draft-07) class and the CLI's options.
    const require = createRequire(import.meta.url);
    const { default: Ajv } = require("ajv") as typeof import("ajv");
    const { default: addFormats } = require("ajv-formats") as { default: (a: InstanceType<typeof Ajv>) => unknown };
    const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addKeyword({ keyword: "errorMessage", schemaType: "string" });
    const schema = JSON.parse(readFileSync(join(EXAMPLES, "../schemas/zoneform.schema.draft-07.json"), "utf8"));
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    const validate = ajv.compile(schema);
    const files = await exampleFiles();
    expect(files).toEqual(expect.arrayContaining(["full.yaml", "minimal.yaml", "strict-csp/zoneform.yaml"]));
    for (const file of files) {
      const text = readFileSync(join(EXAMPLES, file), "utf8");
      // The editor line names this schema, by a path that resolves from the example's folder.
      const ref = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text)?.[1];
      expect(ref && resolve(EXAMPLES, file, "..", ref), file).toBe(
        resolve(EXAMPLES, "../schemas/zoneform.schema.draft-07.json"),
      );
      expect(validate(parse(text)), `${file}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    // …and it refuses what the CLI's 2020-12 schema refuses.
    expect(validate({ version: 1, zones: [{ zone_id: "not-hex" }] })).toBe(false);
    expect(
      validate({
        version: 1,
        zones: [{ zone_id: "5ababd603b22780302dd8d83498e5172", waf: { owasp: { enabled: true, paranoia_level: 0 } } }],
      }),
    ).toBe(false);
    expect(validate({ version: 1, zones: [], extra: true })).toBe(false);
  });

  it("has a directory per common need", async () => {
    expect(await exampleDirs()).toEqual(
      expect.arrayContaining([
        "custom-hostnames",
        "demo",
        "logpush-to-storage",
        "multi-account-estate",
        "multi-zone-estate",
        "owasp-tuned",
        "strict-csp",
      ]),
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
    await applyAndReplan(join(EXAMPLES, "full.yaml"), {
      ...SECRETS,
      LOGPUSH_CHALLENGE: await ownershipToken(ZONE.net, s3),
    });
  });

  it("applies the minimal, strict CSP, OWASP, custom hostname and multi-zone examples", async () => {
    for (const target of [
      "minimal.yaml",
      "strict-csp",
      "owasp-tuned",
      "custom-hostnames",
      "multi-zone-estate",
      "pci-payment-pages",
    ]) {
      await emu.reset();
      await applyAndReplan(join(EXAMPLES, target));
    }
  });

  it("applies the multi-account example, each account's zones and jobs with its own token", async () => {
    const { accounts, zones } = parse(readFileSync(join(EXAMPLES, "multi-account-estate/zoneform.yaml"), "utf8")) as {
      accounts: Array<{ account_id: string }>;
      zones: Array<{ name: string; account_id: string }>;
    };
    const tokens = ["CLOUDFLARE_API_TOKEN_RETAIL", "CLOUDFLARE_API_TOKEN_MEDIA"];
    for (const [i, a] of accounts.entries())
      await emu.admin("POST", "/accounts", { account_id: a.account_id, token: `token-${i}`, token_name: tokens[i] });
    for (const z of zones)
      await emu.admin("POST", "/zones", { name: z.name, plan: "enterprise", account_id: z.account_id });
    await emu.clearRequests();
    await applyAndReplan(join(EXAMPLES, "multi-account-estate"), {
      CLOUDFLARE_API_TOKEN_RETAIL: "token-0",
      CLOUDFLARE_API_TOKEN_MEDIA: "token-1",
      SIEM_AUTH: "Bearer-siem-0001",
    });
    const used = new Set((await emu.requests()).map((r) => r.credential));
    expect([...used].sort()).toEqual([...tokens].sort());
  });
});
