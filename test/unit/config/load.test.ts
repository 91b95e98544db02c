// loadConfig / parseConfigText: normalization, env interpolation and secrets, directories, positions.
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkConfigSources, loadConfig, parseConfigText } from "../../../src/config/index.js";
import { ConfigError } from "../../../src/errors.js";
import { CONFIG_FIXTURES, readFixtures } from "./fixture-corpus.js";

const ROOT = path.resolve(CONFIG_FIXTURES, "../../..");
const Z = "5ababd603b22780302dd8d83498e5172";

function problemsOf(text: string, env: NodeJS.ProcessEnv = {}) {
  try {
    parseConfigText(text, "z.yaml", env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("normalization", () => {
  it("fills every default", () => {
    const [fixture] = readFixtures("valid").filter((f) => f.name === "defaults.yaml");
    const { desired } = parseConfigText(fixture!.text, "defaults.yaml", {});
    expect(desired.safety).toEqual({ max_deletes: 5 });
    expect(desired.account_id).toBeUndefined();
    const [{ declared, ...zone }] = desired.zones as [(typeof desired.zones)[number]];
    // The zone as written is kept beside its normalized form, for a saved plan to re-plan.
    expect(declared).toMatchObject({ zone_id: Z, logs: { custom_fields: { cookies: ["__Session"] } } });
    expect(zone).toEqual({
      zone_id: Z,
      source: { file: "defaults.yaml", line: 4, column: 5 },
      page_shield: {
        prune: true,
        policies: [
          { description: "Report", action: "log", expression: "true", value: "script-src 'self'", enabled: true },
        ],
      },
      waf: {
        owasp: { enabled: true, paranoia_level: 1, score_threshold: 40, action: "block", expression: "true" },
        cloudflare_managed: { enabled: false, expression: "true" },
      },
      logs: {
        prune: true,
        custom_fields: { request_headers: [], response_headers: [], cookies: ["__Session"] },
        logpush_jobs: [
          {
            name: "http",
            dataset: "http_requests",
            destination_conf: "r2://logs/{DATE}?account-id=0123456789abcdef0123456789abcdef",
            enabled: true,
          },
        ],
      },
    });
  });

  it("turns threshold words into integers and keeps integers", () => {
    const [fixture] = readFixtures("valid").filter((f) => f.name === "thresholds.yaml");
    const { desired } = parseConfigText(fixture!.text, "t.yaml", {});
    expect(desired.zones.map((z) => z.waf?.owasp?.score_threshold)).toEqual([60, 25, 100, 1]);
  });

  it("keeps filters as objects and settings that were not given absent", () => {
    const { desired } = parseConfigText(
      `version: 1\nsafety: { max_deletes: 0 }\nzones:\n  - zone_id: ${Z}\n    page_shield: { enabled: false ` +
        `}\n    logs:\n      logpush_jobs:\n        - { name: a, dataset: dns_logs, destination_conf: ` +
        `"gs://b/{DATE}", filter: { where: { key: QueryName, operator: endsWith, value: .example } } }\n`,
      "f.yaml",
      {},
    );
    expect(desired.safety.max_deletes).toBe(0);
    expect(desired.zones[0]!.page_shield).toEqual({ enabled: false, prune: true });
    expect(desired.zones[0]!.logs!.logpush_jobs![0]!.filter).toEqual({
      where: { key: "QueryName", operator: "endsWith", value: ".example" },
    });
    expect(desired.zones[0]!.logs!.custom_fields).toBeUndefined();
  });

  it("lower-cases custom hostnames", () => {
    const { desired } = parseConfigText(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    custom_hostnames: [{ hostname: Shop.Example, ` +
        `certificate_authority: google }]\n`,
      "h.yaml",
      {},
    );
    expect(desired.zones[0]!.custom_hostnames).toEqual([{ hostname: "shop.example", certificate_authority: "google" }]);
  });

  it('reads a custom hostname without certificate_authority as "" (whatever CA Cloudflare chose)', () => {
    const { desired } = parseConfigText(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    custom_hostnames: [{ hostname: a.example }, { hostname: ` +
        `b.example, certificate_authority: "" }, { hostname: c.example, certificate_authority: ssl_com }]\n`,
      "h.yaml",
      {},
    );
    expect(desired.zones[0]!.custom_hostnames).toEqual([
      { hostname: "a.example", certificate_authority: "" },
      { hostname: "b.example", certificate_authority: "" },
      { hostname: "c.example", certificate_authority: "ssl_com" },
    ]);
    expect(
      problemsOf(
        `version: 1\nzones:\n  - zone_id: ${Z}\n    custom_hostnames: [{ hostname: a.example, ` +
          `certificate_authority: comodo }]\n`,
      ),
    ).toHaveLength(1);
  });

  it("keeps an execute rule expression the file states", () => {
    const { desired } = parseConfigText(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    waf:\n      owasp: { enabled: true, expression: ` +
        `'http.host ne "a.example"' }\n      cloudflare_managed: { enabled: false, expression: 'http.cookie eq ` +
        `"t=1"' }\n`,
      "w.yaml",
      {},
    );
    expect(desired.zones[0]!.waf).toEqual({
      owasp: {
        enabled: true,
        paranoia_level: 1,
        score_threshold: 40,
        action: "block",
        expression: 'http.host ne "a.example"',
      },
      cloudflare_managed: { enabled: false, expression: 'http.cookie eq "t=1"' },
    });
    expect(
      problemsOf(`version: 1\nzones:\n  - zone_id: ${Z}\n    waf:\n      owasp: { enabled: true, expression: "" }\n`),
    ).toHaveLength(1);
  });
});

describe("CLOUDFLARE_ACCOUNT_ID", () => {
  const ACCOUNT = "f037e56e89293a057740de681ac9abbe";
  const noAccount = `version: 1\nzones:\n  - zone_id: ${Z}\n`;
  const withAccount = `version: 1\naccount_id: 0123456789abcdef0123456789abcdef\nzones:\n  - zone_id: ${Z}\n`;

  it("fills account_id when the file names none", () => {
    expect(parseConfigText(noAccount, "a.yaml", { CLOUDFLARE_ACCOUNT_ID: ACCOUNT }).desired.account_id).toBe(ACCOUNT);
    expect(parseConfigText(noAccount, "a.yaml", { CLOUDFLARE_ACCOUNT_ID: ` ${ACCOUNT}\n` }).desired.account_id).toBe(
      ACCOUNT,
    );
    expect(parseConfigText(noAccount, "a.yaml", { CLOUDFLARE_ACCOUNT_ID: "" }).desired.account_id).toBeUndefined();
    expect(parseConfigText(noAccount, "a.yaml", {}).desired.account_id).toBeUndefined();
  });

  it("gives way to the file's account_id", () => {
    expect(parseConfigText(withAccount, "a.yaml", { CLOUDFLARE_ACCOUNT_ID: ACCOUNT }).desired.account_id).toBe(
      "0123456789abcdef0123456789abcdef",
    );
  });

  it("is a config error when it is not 32 lower-case hex characters", () => {
    for (const bad of [ACCOUNT.toUpperCase(), ACCOUNT.slice(1), `${ACCOUNT}0`, "my-account"]) {
      const r = checkConfigSources([{ file: "a.yaml", text: noAccount }], { CLOUDFLARE_ACCOUNT_ID: bad });
      expect(r.desired, bad).toBeUndefined();
      expect(r.errors, bad).toEqual([
        {
          file: "CLOUDFLARE_ACCOUNT_ID",
          line: 0,
          column: 0,
          pointer: "",
          message: "expected an account id, 32 lower-case hex characters",
        },
      ]);
    }
    expect(() => parseConfigText(noAccount, "a.yaml", { CLOUDFLARE_ACCOUNT_ID: "my-account" })).toThrow(ConfigError);
  });
});

describe("${env:NAME}", () => {
  const text = `version: 1
zones:
  - zone_id: ${Z}
    name: example.com
    page_shield:
      policies:
        - { description: "CSP \${env:ZONE_LABEL}", action: log, expression: "true", value: "script-src 'self'" }
    logs:
      logpush_jobs:
        - name: j
          dataset: http_requests
          destination_conf: "s3://b/{DATE}?region=eu&access-key-id=\${env:KEY_ID}&secret-access-key=\${env:SECRET}"
          ownership_challenge: \${env:CHALLENGE}
`;
  const env = { ZONE_LABEL: "label-value-7", KEY_ID: "AKIA1", SECRET: "abc/def+ghi", CHALLENGE: "token-123" };

  it("takes a reference anywhere in a string, and the desired state carries it, never the value", () => {
    const { desired } = parseConfigText(text, "e.yaml", env);
    expect(desired.zones[0]!.page_shield!.policies![0]!.description).toBe("CSP ${env:ZONE_LABEL}");
    expect(desired.zones[0]!.logs!.logpush_jobs![0]).toMatchObject({
      destination_conf: "s3://b/{DATE}?region=eu&access-key-id=${env:KEY_ID}&secret-access-key=${env:SECRET}",
      ownership_challenge: "${env:CHALLENGE}",
    });
    expect(desired.secrets.names).toEqual(["CHALLENGE", "KEY_ID", "SECRET", "ZONE_LABEL"]);
    const held = JSON.stringify(desired);
    for (const value of Object.values(env)) expect(held).not.toContain(value);
  });

  it("refuses a reference in what zoneform reads or addresses before any review: ids, names, hostnames", () => {
    const problems = problemsOf(
      `version: 1\nzones:\n  - zone_id: \${env:ZONE}\n    name: \${env:NAME}.com\n    custom_hostnames:\n` +
        `      - hostname: \${env:HOST}\n        certificate_authority: google\n`,
      { ZONE: Z, NAME: "example", HOST: "shop.example.com" },
    );
    expect(problems.map((p) => `${p.line}:${p.column} ${p.message.split(":")[0]}`)).toEqual([
      "3:14 a zone's zone_id takes no ${env",
      "4:11 a zone's name takes no ${env",
      "6:19 a custom hostname takes no ${env",
    ]);
  });

  it("names each missing variable at its line", () => {
    const problems = problemsOf(text, { ZONE_LABEL: "x", KEY_ID: "k" });
    expect(problems.map((p) => `${p.line}:${p.column} ${p.message}`)).toEqual([
      "12:29 environment variable SECRET is not set (referenced as ${env:SECRET})",
      "13:32 environment variable CHALLENGE is not set (referenced as ${env:CHALLENGE})",
    ]);
  });

  it("can treat a missing variable as a warning (validate)", () => {
    const r = checkConfigSources([{ file: "e.yaml", text }], {}, "warning");
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => w.message)).toContain(
      "environment variable SECRET is not set (referenced as ${env:SECRET}); plan and apply will need it",
    );
    expect(r.desired).toBeDefined();
  });

  it("keeps an escaped reference and warns about a reference without env:", () => {
    const r = checkConfigSources(
      [{ file: "x.yaml", text: `version: 1\nzones:\n  - zone_id: ${Z}\n    name: "$\${env:A} \${HOME}"\n` }],
      {},
    );
    // The desired state is in the one template syntax: the literal `${` is written `$${`.
    expect(r.desired!.zones[0]!.name).toBe("$${env:A} $${HOME}");
    expect(r.warnings).toEqual([
      expect.objectContaining({ line: 4, message: expect.stringContaining("did you mean '${env:HOME}'?") }),
    ]);
  });

  it("never shows an interpolated value in a message", () => {
    const problems = problemsOf(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    waf:\n      owasp:\n        enabled: true\n        ` +
        `action: \${env:ACTION}\n`,
      { ACTION: "super-secret-value" },
    );
    expect(problems[0]!.message).toBe(
      "must be one of: block, managed_challenge, js_challenge, log, challenge (got '(sensitive)')",
    );
  });
});

describe("positions", () => {
  it("points an unknown key at the key and a missing key at its mapping", () => {
    const problems = problemsOf(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield:\n      policies:\n        - description: A\n ` +
        `         action: log\n          expresion: "true"\n          value: v\n`,
    );
    expect(problems.map((p) => [p.line, p.column, p.pointer, p.message])).toEqual([
      [8, 11, "/zones/0/page_shield/policies/0/expresion", "unknown key 'expresion'; did you mean 'expression'?"],
    ]);
    const missing = problemsOf(`version: 1\nzones:\n  - zone_id: ${Z}\n    waf:\n      owasp:\n        action: log\n`);
    expect(missing.map((p) => [p.line, p.column, p.message])).toEqual([[6, 9, "missing required key 'enabled'"]]);
  });

  it("points an empty value at its key", () => {
    const problems = problemsOf(`version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield:\n      policies:\n`);
    expect(problems.map((p) => [p.line, p.column, p.pointer, p.message])).toEqual([
      [5, 7, "/zones/0/page_shield/policies", "must be a list (got nothing)"],
    ]);
  });

  it("lists allowed keys when nothing is close", () => {
    const problems = problemsOf(`version: 1\nzones:\n  - zone_id: ${Z}\n    waf:\n      firewall: {}\n`);
    expect(problems[0]!.message).toBe("unknown key 'firewall'; allowed here: owasp, cloudflare_managed");
  });

  it("reports a YAML error and keeps reporting the other files", () => {
    const r = checkConfigSources(
      [
        { file: "a.yaml", text: "version: 1\nzones: [\n" },
        { file: "b.yaml", text: "version: 1\nzones:\n  - zone_id: nope\n" },
      ],
      {},
    );
    expect(r.errors.map((e) => `${e.file}:${e.line}`)).toEqual(["a.yaml:3", "b.yaml:3"]);
    expect(r.errors[0]!.message).toMatch(/^YAML syntax error: /);
  });

  it("refuses more than one document in a file", () => {
    const r = checkConfigSources([{ file: "m.yaml", text: "version: 1\nzones: []\n---\nversion: 1\nzones: []\n" }], {});
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ line: 3, message: expect.stringContaining("YAML syntax error") });
  });
});

describe("loadConfig", () => {
  it("loads the examples directory", async () => {
    const { desired, warnings } = await loadConfig("examples", {
      cwd: ROOT,
      env: { AWS_KEY_ID: "a", AWS_SECRET: "b", LOGPUSH_CHALLENGE: "c", DATADOG_API_KEY: "d" },
    });
    expect(desired.files.slice(0, 2)).toEqual(["examples/full.yaml", "examples/minimal.yaml"]);
    expect(desired.account_id).toBe("0123456789abcdef0123456789abcdef");
    expect(desired.zones.map((z) => z.name).slice(0, 3)).toEqual(["example.net", "example.org", "example.dev"]);
    expect([...desired.secrets.names].sort()).toEqual([
      "AWS_KEY_ID",
      "AWS_SECRET",
      "DATADOG_API_KEY",
      "LOGPUSH_CHALLENGE",
    ]);
    expect(warnings).toEqual([]);
  });

  it("reads *.yaml and *.yml sorted, not recursively, and lets equal settings repeat", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "zoneform-load-"));
    await mkdir(path.join(dir, "sub"));
    await writeFile(path.join(dir, "sub", "ignored.yaml"), "not: valid");
    await writeFile(path.join(dir, "b.yml"), `version: 1\nsafety: { max_deletes: 5 }\nzones: [{ zone_id: ${Z} }]\n`);
    await writeFile(
      path.join(dir, "a.yaml"),
      "version: 1\nsafety: {}\nzones: [{ zone_id: 28bf0eba6631b5563247f1b42d9a7f17 }]\n",
    );
    const { desired } = await loadConfig(dir, { env: {}, cwd: ROOT });
    expect(desired.files).toEqual([path.join(dir, "a.yaml"), path.join(dir, "b.yml")]);
    expect(desired.zones.map((z) => z.zone_id)).toEqual(["28bf0eba6631b5563247f1b42d9a7f17", Z]);
  });

  it("reports safety that differs between files", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "zoneform-load-"));
    await writeFile(path.join(dir, "a.yaml"), "version: 1\nsafety: { max_deletes: 2 }\nzones: []\n");
    await writeFile(path.join(dir, "b.yaml"), "version: 1\nsafety: { max_deletes: 3 }\nzones: []\n");
    await expect(loadConfig(".", { env: {}, cwd: dir })).rejects.toMatchObject({
      problems: [
        expect.objectContaining({
          file: "b.yaml",
          line: 2,
          pointer: "/safety",
          message: "safety differs from the one in a.yaml:2:9: files of one configuration must agree",
        }),
      ],
    });
  });

  it("resolves the default ./zoneform.yaml against cwd", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "zoneform-load-"));
    await writeFile(path.join(dir, "zoneform.yaml"), `version: 1\nzones: [{ zone_id: ${Z} }]\n`);
    const { desired } = await loadConfig(undefined, { env: {}, cwd: dir });
    expect(desired.files).toEqual(["zoneform.yaml"]);
  });

  it("throws a ConfigError with every problem and the warnings after them", async () => {
    const err = await loadConfig("test/fixtures/config/invalid/filter-too-many-operators.yaml", {
      env: {},
      cwd: ROOT,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).exitCode).toBe(3);
    expect((err as ConfigError).message).toMatch(
      /^1 problem in the configuration:\n {2}test\/fixtures\/config\/invalid\/filter-too-many-operators\.yaml:12:13 {2}\//,
    );
  });
});
