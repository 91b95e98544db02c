// `accounts:` at the top level of a file: each entry's token (a `${env:NAME}` reference only), its
// account-level Logpush jobs (the zone jobs' rules), `prune`, a zone's `account_id`, an account listed
// once across the files of a configuration.
import { describe, expect, it } from "vitest";
import { checkConfigSources, parseConfigText } from "../../../src/config/index.js";
import type { ConfigProblem } from "../../../src/errors.js";
import type { Env } from "../../../src/model/env.js";

const ACCT_A = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a";
const ACCT_B = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b";
const ZONE = "5ababd603b22780302dd8d83498e5172";

function problems(files: Array<[string, string]>, env: Env = {}): string[] {
  const r = checkConfigSources(
    files.map(([file, text]) => ({ file, text })),
    env,
  );
  return [...r.errors, ...r.warnings].map(
    (p: ConfigProblem) =>
      `${p.file}:${p.line}:${p.column} ${p.pointer} ${p.severity === "warning" ? "warning: " : ""}${p.message}`,
  );
}

const GOOD = `version: 1
accounts:
  - account_id: ${ACCT_A}
    api_token: \${env:TOKEN_A}
    logpush_jobs:
      - name: audit
        dataset: audit_logs
        destination_conf: https://logs.example.com/audit?header_Authorization=\${env:AUDIT_AUTH}
  - account_id: ${ACCT_B}
    prune: false
    logpush_jobs: []
zones:
  - zone_id: ${ZONE}
    account_id: ${ACCT_A}
`;

describe("accounts: in the configuration", () => {
  it("loads each entry: its token by variable, its jobs normalized as a zone's, prune, and a zone's account", () => {
    const { desired } = parseConfigText(GOOD, "z.yaml", { TOKEN_A: "tok-a", AUDIT_AUTH: "secret" });
    expect(desired.zones[0]!.account_id).toBe(ACCT_A);
    const [a, b] = desired.accounts!;
    expect(a!.account_id).toBe(ACCT_A);
    // A token is who applies: the desired state names its variable, never its value.
    expect(a!.api_token).toEqual({ env: "TOKEN_A" });
    expect(a!.prune).toBe(true);
    expect(a!.logpush_jobs).toEqual([
      {
        name: "audit",
        dataset: "audit_logs",
        destination_conf: "https://logs.example.com/audit?header_Authorization=${env:AUDIT_AUTH}",
        enabled: true,
      },
    ]);
    // What a saved plan carries: the reference, never the token.
    expect(a!.declared?.api_token).toBe("${env:TOKEN_A}");
    expect(b!.api_token).toBeUndefined();
    expect(b!.prune).toBe(false);
    expect(b!.logpush_jobs).toEqual([]);
  });

  it("refuses a token written in the file, or a reference with text around it", () => {
    const text = `version: 1
accounts:
  - account_id: ${ACCT_A}
    api_token: not-a-reference
  - account_id: ${ACCT_B}
    api_token: Bearer \${env:TOKEN_B}
zones: []
`;
    const found = problems([["z.yaml", text]], { TOKEN_B: "x" });
    expect(found).toEqual([
      "z.yaml:4:16 /accounts/0/api_token api_token must be a ${env:NAME} reference alone (e.g. " +
        "${env:CLOUDFLARE_API_TOKEN_SHOP}): the token itself never belongs in the file, and plan files keep only " +
        "the reference",
      "z.yaml:6:16 /accounts/1/api_token api_token must be a ${env:NAME} reference alone (e.g. " +
        "${env:CLOUDFLARE_API_TOKEN_SHOP}): the token itself never belongs in the file, and plan files keep only " +
        "the reference",
    ]);
  });

  it("refuses an account listed twice, in one file or across files", () => {
    const one = `version: 1
accounts:
  - account_id: ${ACCT_A}
  - account_id: ${ACCT_A}
zones: []
`;
    expect(problems([["a.yaml", one]])).toEqual([
      `a.yaml:4:17 /accounts/1/account_id account ${ACCT_A} is listed twice (also item 0 of accounts): list each ` +
        "account once",
    ]);
    const other = `version: 1
accounts:
  - account_id: ${ACCT_A}
zones: []
`;
    expect(
      problems([
        ["a.yaml", other],
        ["b.yaml", other],
      ]),
    ).toEqual([
      `b.yaml:3:17 /accounts/0/account_id account ${ACCT_A} is listed in two files (first at a.yaml:3:17): list ` +
        "each account once",
    ]);
  });

  it("checks an account's jobs with the zone jobs' rules: duplicates, literal credentials, unknown keys", () => {
    const text = `version: 1
accounts:
  - account_id: ${ACCT_A}
    logpush_jobs:
      - name: gw
        dataset: gateway_dns
        destination_conf: s3://bucket/logs?region=us-east-1&secret-access-key=abc
        ownership_challenge: literal
      - name: gw
        dataset: gateway_dns
        destination_conf: r2://b/x
        colour: blue
zones: []
`;
    expect(problems([["z.yaml", text]])).toEqual([
      "z.yaml:7:27 /accounts/0/logpush_jobs/0/destination_conf the credential 'secret-access-key' is written " +
        "literally: use secret-access-key=${env:NAME} so that it comes from the environment (plan files keep only " +
        "the reference)",
      "z.yaml:8:30 /accounts/0/logpush_jobs/0/ownership_challenge ownership_challenge is written literally: use " +
        "${env:NAME} so that it comes from the environment (plan files keep only the reference)",
      "z.yaml:9:15 /accounts/0/logpush_jobs/1/name Logpush job named 'gw' with dataset 'gateway_dns' is declared " +
        "twice (also item 0 of this list) with no id: to declare two live Logpush jobs that share it, give each " +
        "its own `id:`",
      "z.yaml:12:9 /accounts/0/logpush_jobs/1/colour unknown key 'colour'; allowed here: id, name, dataset, " +
        "destination_conf, ownership_challenge, enabled, kind, filter, output_options, max_upload_bytes, " +
        "max_upload_interval_seconds, max_upload_records, filter_attack_traffic, logpull_options, frequency",
    ]);
  });

  it("warns of prune in an entry without a list, and loads a file of accounts only without the no-zones warning", () => {
    const text = `version: 1
accounts:
  - account_id: ${ACCT_A}
    prune: false
zones: []
`;
    expect(problems([["z.yaml", text]])).toEqual([
      "z.yaml:4:12 /accounts/0/prune warning: prune has no effect without a list (notifications, logpush_jobs): nothing " +
        "of this account is managed",
    ]);
  });

  it("refuses a zone's account_id in defaults, saying where it belongs", () => {
    const text = `version: 1
defaults:
  account_id: ${ACCT_A}
zones:
  - zone_id: ${ZONE}
`;
    expect(problems([["z.yaml", text]])).toEqual([
      "z.yaml:3:15 /defaults/account_id a zone's account is not a default: write account_id once at the top " +
        `level of the file (the account of every zone that names none) (got '${ACCT_A}')`,
    ]);
  });
});
