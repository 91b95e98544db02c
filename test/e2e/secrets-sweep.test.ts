// Issue 10.5, the secrets sweep: every command `zoneform --help` lists (the emulator excepted) runs
// with known secret values in the environment (the API token, or an e-mail and global key, and the
// `${env:…}` values of Logpush destinations and ownership challenges) and --verbose wherever it is
// accepted; none of the values may appear in stdout, stderr, a saved plan or an exported file. The
// command list comes from --help, so a new command fails this test until it has an invocation here.
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT, TestEmulator, ZONE, runCli, tempDir, writeConfig, type CliResult } from "../helpers/cli.js";

const SECRETS = {
  CLOUDFLARE_API_TOKEN: "sweepTok-9f2c41d7e0b8a6531c",
  AWS_KEY_ID: "AKIASWEEP7Q3XK2LMN8P",
  AWS_SECRET: "sweepAwsSecret+Zq81/vTnR4wLx0Ke",
  DATADOG_API_KEY: "sweepdd0c7e5a19b34f8d62",
  HTTPS_LOG_AUTH: "sweepHdr4e81b0c9a2f7",
} as const;
const KEY_CREDENTIALS = { CLOUDFLARE_EMAIL: "sweep@example.com", CLOUDFLARE_API_KEY: "sweepGlobalKey5d3a9e0f7c1b42" };
const S3 =
  "s3://sweep-logs/http/{DATE}?region=us-east-1&access-key-id=${env:AWS_KEY_ID}&secret-access-key=${env:AWS_SECRET}";

let emu: TestEmulator;
let dir: string;
/** Where `audit --evidence-dir` keeps its records (apart from `dir`, whose files are swept as files). */
let evidenceDir: string;
let config: string;
let env: Record<string, string>;
/** Every value that must never be shown, with the variable it came from. */
let secretValues: Array<[string, string]>;
const outputs: Array<{ what: string; text: string }> = [];

const ZONE_YAML = (id: string, name: string, hostname: string) => `  - zone_id: ${id}
    name: ${name}
    page_shield:
      enabled: true
      policies:
        - { description: Checkout, action: allow, expression: 'http.request.uri.path contains "/checkout"', value: "script-src 'self'" }
    waf:
      owasp: { enabled: true, paranoia_level: 2, score_threshold: medium, action: block }
    logs:
      custom_fields: { request_headers: [user-agent] }
      logpush_jobs:
        - name: http-to-s3
          dataset: http_requests
          destination_conf: "${S3}"
          ownership_challenge: \${env:LOGPUSH_CHALLENGE_${name.replace(/\W/g, "_").toUpperCase()}}
          output_options: { field_names: [RayID, ClientIP] }
        - name: firewall-to-datadog
          dataset: firewall_events
          destination_conf: "datadog://http-intake.logs.datadoghq.com/api/v2/logs?header_DD-API-KEY=\${env:DATADOG_API_KEY}"
          output_options: { field_names: [Action, RayID] }
        - name: http-to-https
          dataset: http_requests
          destination_conf: "https://logs.example.com/ingest?header_Authorization=\${env:HTTPS_LOG_AUTH}"
          output_options: { field_names: [RayID] }
    custom_hostnames:
      - { hostname: ${hostname}, certificate_authority: google }
`;

beforeAll(async () => {
  emu = await TestEmulator.start();
  // The emulator accepts the sweep's token and global key besides its own.
  const state = await emu.admin<{
    credentials: { tokens: string[]; keys: Array<{ email: string; key: string }> };
    zones: Array<{ id: string; plan: string }>;
  }>("GET", "/state");
  // The file names a CA for both zones: that needs Enterprise (real-answers.md, "custom hostname CA": 1459).
  for (const z of state.zones) if (z.id === ZONE.net) z.plan = "enterprise";
  state.credentials.tokens.push(SECRETS.CLOUDFLARE_API_TOKEN);
  state.credentials.keys.push({ email: KEY_CREDENTIALS.CLOUDFLARE_EMAIL, key: KEY_CREDENTIALS.CLOUDFLARE_API_KEY });
  await emu.admin("PUT", "/state", state);
  const challenge = async (zone: string) =>
    (
      await emu.admin<{ token: string }>(
        "GET",
        `/ownership/${zone}?destination=${encodeURIComponent(S3.replace(/\?.*$/, ""))}`,
      )
    ).token;
  env = {
    ...SECRETS,
    LOGPUSH_CHALLENGE_EXAMPLE_COM: await challenge(ZONE.com),
    LOGPUSH_CHALLENGE_EXAMPLE_NET: await challenge(ZONE.net),
  };
  secretValues = [
    ...Object.entries(env),
    ...Object.entries(KEY_CREDENTIALS).filter(([k]) => k === "CLOUDFLARE_API_KEY"),
  ];
  dir = await tempDir("zoneform-sweep-");
  evidenceDir = await tempDir("zoneform-sweep-evidence-");
  config = await writeConfig(
    `version: 1\naccount_id: ` +
      `${ACCOUNT}\nzones:\n${ZONE_YAML(ZONE.com, "example.com", "shop.acme-com.example")}${ZONE_YAML(ZONE.net, "example.net", "shop.acme-net.example")}`,
    "zoneform.yaml",
    dir,
  );
});
afterAll(async () => emu?.close());

async function run(argv: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  const r = await runCli(emu, argv, { env: { ...env, ...extraEnv }, cwd: dir });
  outputs.push(
    { what: `zoneform ${argv.join(" ")}: stdout`, text: r.stdout },
    { what: `zoneform ${argv.join(" ")}: stderr`, text: r.stderr },
  );
  return r;
}

/** Names of the commands (and `parent sub` for commands with subcommands) that --help lists. */
async function listedCommands(prefix: string[] = []): Promise<string[]> {
  const help = await runCli(undefined, [...prefix, "--help"], { env: {} });
  const section = help.stdout.split(/^Commands:$/m)[1] ?? "";
  const names = [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((n) => n !== "help");
  const out: string[] = [];
  for (const name of names) {
    const subs = prefix.length === 0 ? await listedCommands([name]) : [];
    if (subs.length > 0) out.push(...subs);
    else out.push([...prefix, name].join(" "));
  }
  return out;
}

describe("secrets sweep", () => {
  /** Every listed command, with how it is run here; each entry asserts its own exit code. */
  const INVOCATIONS: Record<string, () => Promise<void>> = {
    validate: async () => {
      expect((await run(["validate", "-c", config, "--verbose"])).code).toBe(0);
      expect((await run(["validate", "-c", config, "--require-env"])).code).toBe(0);
    },
    plan: async () => {
      for (const format of ["text", "json", "markdown"]) {
        const r = await run(["plan", "-c", config, "--format", format, "--verbose", "--detailed-exitcode"]);
        expect(r.code, r.stderr).toBe(2);
      }
      const saved = await run(["plan", "-c", config, "--out", join(dir, "plan.json")]);
      expect(saved.code, saved.stderr).toBe(0);
      const keyed = await run(["plan", "-c", config, "--verbose"], { CLOUDFLARE_API_TOKEN: "", ...KEY_CREDENTIALS });
      expect(keyed.code, keyed.stderr).toBe(0);
      // The API refuses a destination and echoes it back in its message: still no secret shown. It holds
      // secrets, so Cloudflare checks it at apply (the plan says so), and the apply writes nothing.
      const broken = await writeConfig(
        (await readFile(config, "utf8")).replaceAll("s3://sweep-logs/", "s3://invalid-bucket/"),
        "broken.yaml",
        await tempDir(),
      );
      const deferred = await run(["plan", "-c", broken, "--verbose"]);
      expect(deferred.code, deferred.stderr).toBe(0);
      expect(deferred.stdout).toContain("Cloudflare checks this destination at apply");
      const refused = await run(["apply", "-c", broken, "--auto-approve", "--verbose"]);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toContain("invalid-bucket");
      expect(refused.stderr).toContain("nothing was written");
    },
    apply: async () => {
      // From the saved plan for one zone, then from the file for the other: both write secrets.
      const fromPlan = await run(["apply", join(dir, "plan.json"), "--zone", ZONE.com, "--verbose"]);
      expect(fromPlan.code, fromPlan.stderr).toBe(0);
      const fromFile = await run(["apply", "-c", config, "--auto-approve", "--verbose"]);
      expect(fromFile.code, fromFile.stderr).toBe(0);
    },
    drift: async () => {
      const r = await run(["drift", "-c", config, "--verbose"]);
      expect([0, 2], r.stderr).toContain(r.code);
    },
    export: async () => {
      const r = await run([
        "export",
        "--zone",
        ZONE.com,
        "--zone",
        ZONE.net,
        "--account-id",
        ACCOUNT,
        "--out",
        join(dir, "exported.yaml"),
        "--verbose",
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect((await run(["export", "--zone", ZONE.com])).code).toBe(0);
    },
    audit: async () => {
      for (const format of ["text", "json", "markdown", "csv"]) {
        const r = await run(["audit", "--zone", ZONE.com, "--format", format, "--verbose"]);
        expect([0, 2], r.stderr).toContain(r.code);
      }
      // The file's zones, each format that writes the whole report at the end, each run kept on record.
      for (const format of ["sarif", "html"]) {
        const r = await run(["audit", "-c", config, "--format", format, "--evidence-dir", evidenceDir, "--verbose"]);
        expect([0, 2], r.stderr).toContain(r.code);
      }
    },
    evidence: async () => {
      for (const file of await readdir(evidenceDir))
        outputs.push({ what: `record ${file}`, text: await readFile(join(evidenceDir, file), "utf8") });
      for (const format of ["text", "markdown", "json", "html"]) {
        const r = await run(["evidence", evidenceDir, "--format", format]);
        expect(r.code, r.stderr).toBe(0);
      }
    },
    "csp suggest": async () => {
      for (const format of ["text", "yaml"])
        expect((await run(["csp", "suggest", "--zone", ZONE.com, "--format", format, "--verbose"])).code).toBe(0);
    },
    certificates: async () => {
      for (const format of ["text", "json"])
        expect((await run(["certificates", "--zone", ZONE.com, "--format", format, "--verbose"])).code).toBe(0);
    },
    "waf-migration check": async () => {
      expect([0, 1]).toContain((await run(["waf-migration", "check", "--zone", ZONE.com, "--verbose"])).code);
    },
    "waf-migration config": async () => {
      expect([0, 1]).toContain(
        (await run(["waf-migration", "config", "--zone", ZONE.com, "--verbose", "--write", join(dir, "waf.yaml")]))
          .code,
      );
    },
    "waf-migration status": async () => {
      expect([0, 1]).toContain((await run(["waf-migration", "status", "--zone", ZONE.com, "--verbose"])).code);
    },
    "waf-migration start": async () => {
      // The zone is already on the new WAF: the API refuses, and the refusal is what is checked.
      expect([0, 1]).toContain(
        (await run(["waf-migration", "start", "--zone", ZONE.com, "--mode", "pending", "--yes", "--verbose"])).code,
      );
    },
    "logpush challenge": async () => {
      const r = await run(["logpush", "challenge", "--zone", ZONE.com, "--destination", S3, "--verbose"]);
      expect(r.code, r.stderr).toBe(0);
    },
    show: async () => {
      for (const format of ["text", "markdown", "json"]) {
        const r = await run(["show", join(dir, "plan.json"), "--format", format]);
        expect(r.code, r.stderr).toBe(0);
      }
    },
    inventory: async () => {
      const r = await run([
        "inventory",
        "--zone",
        ZONE.com,
        "--pages",
        "example.com/checkout*",
        "--pin-hashes",
        "--verbose",
      ]);
      expect(r.code, r.stderr).toBe(0);
    },
    whoami: async () => {
      for (const format of ["text", "json"]) {
        const r = await run(["whoami", "-c", config, "--format", format, "--verbose"]);
        expect(r.code, r.stderr).toBe(0);
      }
    },
  };

  it("runs every command --help lists, and none shows a secret", async () => {
    const listed = await listedCommands();
    const missing = listed.filter((c) => c !== "emulator" && !INVOCATIONS[c]);
    expect(missing, "commands without an invocation in the sweep: add one").toEqual([]);
    for (const [name, invoke] of Object.entries(INVOCATIONS)) {
      if (!listed.includes(name)) continue;
      await invoke();
    }
    // What the commands wrote to disk: the saved plan, the exported file, the WAF config.
    for (const file of await readdir(dir))
      outputs.push({ what: `file ${file}`, text: await readFile(join(dir, file), "utf8") });
    expect(outputs.some((o) => o.what === "file plan.json")).toBe(true);
    expect(outputs.some((o) => o.what === "file exported.yaml")).toBe(true);

    const leaks = outputs.flatMap((o) =>
      secretValues.filter(([, value]) => o.text.includes(value)).map(([name]) => `${name} in ${o.what}`),
    );
    expect(leaks).toEqual([]);
    // The sweep saw the places where the secrets would have been.
    expect(outputs.map((o) => o.text).join("\n")).toContain("(sensitive)");
  }, 120_000);
});
