// Secrets in every encoding (issue 34): a `${env:…}` value holding `"`, `\`, a tab and characters
// beyond ASCII, used in a Logpush filter (sent as JSON inside JSON) and in a description, never reaches
// any output in any form: plan text, Markdown and JSON, the saved plan file, `show` in each format,
// `--verbose` logs, `apply`'s output; nor audit JSON and SARIF, where the value is an inventory's page.
// And credentials in a live destination (user info, `code`, `p`, a hex path token) are exported as
// `${env:…}` references with the variables to set, plan clean with them, and are refused by
// `validate` when written literally.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const SECRET = 'Zq"81\\vT\tnR4é"wLx\u00df';

/** Every form the value could take in an output: as it is, JSON-escaped once to thrice, URL-encoded, \u-escaped. */
function formsOf(v: string): string[] {
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  const u = (s: string) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
  const forms = [v, json(v), json(json(v)), json(json(json(v))), encodeURIComponent(v), u(v), json(u(v))];
  forms.push(new URLSearchParams({ v }).toString().slice(2), encodeURIComponent(json(v)));
  return forms;
}

/** Fails naming the output and the form of the secret it holds. */
function expectNoFormOf(text: string, what: string): void {
  for (const form of formsOf(SECRET)) {
    const at = text.indexOf(form);
    if (at >= 0) expect.fail(`${what} holds ${JSON.stringify(form)}: …${text.slice(Math.max(0, at - 60), at + 60)}…`);
  }
  // The distinctive runs between its escaped characters, whatever encodes what surrounds them (no hex
  // id or hash holds an upper-case letter).
  for (const piece of ["nR4", "wLx"]) if (text.includes(piece)) expect.fail(`${what} holds the piece "${piece}"`);
}

const config = () => `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      policies:
        - description: "Checkout \${env:SECRET}"
          action: log
          expression: 'http.request.uri.path contains "/checkout"'
          value: "script-src 'self'"
    logs:
      logpush_jobs:
        - name: filtered
          dataset: http_requests
          destination_conf: "https://logs.example.com/ingest?region=eu"
          filter: { where: { key: ClientRequestPath, operator: eq, value: "\${env:SECRET}" } }
          output_options: { field_names: [RayID] }
`;

describe("a secret with quotes, backslashes, a tab and unicode", () => {
  it("is in no output of plan, the plan file, show, apply and --verbose logs, in any form", async () => {
    const env = { SECRET };
    const cfg = await writeConfig(config());
    const dir = await tempDir();
    const file = join(dir, "plan.json");
    const outputs: Array<[string, string]> = [];
    for (const format of ["text", "markdown", "json"]) {
      const r = await runCli(emu, ["plan", "-c", cfg, "--format", format, "--verbose"], { env });
      expect(r.code, r.stderr).toBe(0);
      outputs.push([`plan --format ${format}`, r.stdout + r.stderr]);
    }
    const saved = await runCli(emu, ["plan", "-c", cfg, "--out", file, "--verbose"], { env });
    expect(saved.code, saved.stderr).toBe(0);
    const text = await readFile(file, "utf8");
    outputs.push(["plan --out", saved.stdout + saved.stderr], ["the plan file", text]);
    // The file holds the reference where the value was, at every depth of its JSON.
    // Inside the filter's JSON the reference is marked to go in JSON-escaped when the write is made.
    expect(text).toContain('\\"value\\":\\"${env:SECRET|json}\\"');
    for (const format of ["text", "markdown", "json"]) {
      const r = await runCli(undefined, ["show", file, "--format", format, "--verbose"], { env });
      expect(r.code, r.stderr).toBe(0);
      outputs.push([`show --format ${format}`, r.stdout + r.stderr]);
    }
    const applied = await runCli(emu, ["apply", file, "--verbose"], { env });
    expect(applied.code, applied.stderr).toBe(0);
    outputs.push(["apply --verbose", applied.stdout + applied.stderr]);
    // The value did reach the API, in the filter's JSON: the test would see it if it were shown.
    const sent = JSON.stringify((await emu.requests()).map((r) => r.body));
    expect(sent).toContain(JSON.stringify(JSON.stringify(SECRET)).slice(1, -1).slice(2, -2));
    for (const [what, out] of outputs) expectNoFormOf(out, what);
    const again = await runCli(emu, ["plan", "-c", cfg, "--detailed-exitcode"], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it("never reaches audit's output through an inventory's entry: the inventory takes no ${env:…}", async () => {
    const env = { SECRET };
    const cfg = await writeConfig(`version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      script_inventory:
        pages: ["example.com/checkout"]
        authorized:
          - url: "https://js.example/pay.js"
            justification: "Pays \${env:SECRET}"
            owner: "\${env:SECRET}"
`);
    // The inventory is evidence, written to files and reports: a value of the environment never goes in it.
    for (const format of ["json", "sarif", "markdown", "text", "csv"]) {
      const r = await runCli(emu, ["audit", "-c", cfg, "--format", format, "--verbose"], { env });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain("the script inventory (checked by audit) takes no ${env:…}");
      expectNoFormOf(r.stdout + r.stderr, `audit --format ${format}`);
    }
    expect(await emu.calls()).toEqual([]);
  });
});

const HEX = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const LIVE_DESTINATION = `https://logger:hunter2@fn.azurewebsites.net/api/${HEX}?code=abc123zz&p=s3cretP&region=eu`;

describe("credentials in a live destination", () => {
  it("export writes them as references and names the variables; plan with them set shows no changes", async () => {
    await emu.api("POST", `zones/${ZONE.com}/logpush/jobs`, {
      name: "to-fn",
      dataset: "http_requests",
      destination_conf: LIVE_DESTINATION,
      enabled: true,
    });
    const out = join(await tempDir(), "com.yaml");
    const r = await runCli(emu, ["export", "--zone", ZONE.com, "--out", out, "--sections", "logpush"]);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(out, "utf8");
    for (const secret of ["hunter2", HEX, "abc123zz", "s3cretP"]) {
      expect(text).not.toContain(secret);
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    const job = parse(text).zones[0].logs.logpush_jobs[0];
    expect(job.destination_conf).toBe(
      "https://logger:${env:ZONEFORM_TO_FN_PASSWORD}@fn.azurewebsites.net/api/${env:ZONEFORM_TO_FN_PATH_1}" +
        "?code=${env:ZONEFORM_TO_FN_CODE}&p=${env:ZONEFORM_TO_FN_P}&region=eu",
    );
    for (const name of ["ZONEFORM_TO_FN_PASSWORD", "ZONEFORM_TO_FN_PATH_1", "ZONEFORM_TO_FN_CODE", "ZONEFORM_TO_FN_P"])
      expect(text).toMatch(new RegExp(`^#\\s+${name}\\s+logpush job to-fn: `, "m"));
    const env = {
      ZONEFORM_TO_FN_PASSWORD: "hunter2",
      ZONEFORM_TO_FN_PATH_1: HEX,
      ZONEFORM_TO_FN_CODE: "abc123zz",
      ZONEFORM_TO_FN_P: "s3cretP",
    };
    await emu.clearRequests();
    const plan = await runCli(emu, ["plan", "-c", out, "--detailed-exitcode", "--verbose"], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    for (const secret of ["hunter2", HEX, "abc123zz", "s3cretP"])
      expect(plan.stdout + plan.stderr).not.toContain(secret);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });

  it("validate refuses each written literally, at its line, with the fix, never echoing it", async () => {
    const cfg = await writeConfig(`version: 1
zones:
  - zone_id: ${ZONE.com}
    logs:
      logpush_jobs:
        - name: to-fn
          dataset: http_requests
          destination_conf: "${LIVE_DESTINATION}"
`);
    const r = await runCli(undefined, ["validate", "-c", cfg]);
    expect(r.code).toBe(3);
    for (const name of ["code", "p"])
      expect(r.stderr).toContain(
        `${cfg}:8:29  /zones/0/logs/logpush_jobs/0/destination_conf  the credential '${name}' is written literally`,
      );
    expect(r.stderr).toContain(
      `${cfg}:8:29  /zones/0/logs/logpush_jobs/0/destination_conf  the password in this destination's user info ` +
        "is written in the file: use user:${env:NAME}@",
    );
    for (const secret of ["hunter2", HEX, "abc123zz", "s3cretP"]) expect(r.stdout + r.stderr).not.toContain(secret);
    expect(await emu.calls()).toEqual([]);
  });
});
