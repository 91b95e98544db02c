// `zoneform validate` end to end, in-process: the examples, the fixture corpus (every invalid file
// exits 3 with its message at its line), directories, env handling and --help.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/program.js";
import { CONFIG_FIXTURES, readFixtures } from "../unit/config/fixture-corpus.js";

const ROOT = path.resolve(CONFIG_FIXTURES, "../../..");

async function run(argv: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const m = memoryIO({ env: opts.env ?? {}, cwd: opts.cwd ?? ROOT });
  const code = await main(argv, m.io);
  return { code, stdout: m.stdout(), stderr: m.stderr() };
}

describe("zoneform validate", () => {
  it("accepts the examples directory with no environment (unset secrets are warnings)", async () => {
    const r = await run(["validate", "-c", "examples/"]);
    expect(r.code).toBe(0);
    // Every file of examples/ is read: together they must form one configuration (each zone once).
    expect(r.stdout).toMatch(
      /^✓ \d+ zones in examples\/full\.yaml, examples\/minimal\.yaml(, examples\/[\w.-]+\.ya?ml)* are valid/,
    );
    expect(r.stderr).toContain("environment variable AWS_SECRET is not set");
    expect(r.stderr).not.toMatch(/Error|at .*\.ts/);
  });

  it("accepts each example with its environment set, without warnings", async () => {
    const env = { AWS_KEY_ID: "AKIAEXAMPLE", AWS_SECRET: "s3cr3t", LOGPUSH_CHALLENGE: "tok", DATADOG_API_KEY: "ddkey" };
    for (const file of ["examples/minimal.yaml", "examples/full.yaml"]) {
      const r = await run(["validate", "-c", file, "--require-env"], { env });
      expect(r, file).toMatchObject({ code: 0, stderr: "" });
    }
  });

  it("lists what each zone manages with --verbose", async () => {
    const r = await run(["validate", "-c", "examples/minimal.yaml", "--verbose"]);
    expect(r.stdout).toContain("example.dev (a6090c8648694262ae990706d1a149ac): page_shield (1 policy)");
  });

  it("fails with exit 3 on an unset variable with --require-env, naming it and its line", async () => {
    const r = await run(["validate", "-c", "examples/full.yaml", "--require-env"], {
      env: { AWS_KEY_ID: "x", DATADOG_API_KEY: "y" },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      "examples/full.yaml:50:29  /zones/0/logs/logpush_jobs/0/destination_conf  environment variable " +
        "AWS_SECRET is not set",
    );
    expect(r.stderr).toContain(
      "examples/full.yaml:51:32  /zones/0/logs/logpush_jobs/0/ownership_challenge  environment variable " +
        "LOGPUSH_CHALLENGE",
    );
  });

  for (const fixture of readFixtures("valid")) {
    it(`accepts valid/${fixture.name}`, async () => {
      const r = await run(["validate", "-c", fixture.path, "--require-env"], { env: fixture.env });
      expect(r.stderr.replace(/^.*warning: .*$\n?/gm, "")).toBe("");
      expect(r.code).toBe(0);
    });
  }

  const invalid = readFixtures("invalid");
  it("has a corpus of at least 25 invalid files, each with an expectation", () => {
    expect(invalid.length).toBeGreaterThanOrEqual(25);
    for (const f of invalid) expect(f.expect.length, f.name).toBeGreaterThan(0);
    expect(new Set(invalid.map((f) => f.expect[0]!.message)).size).toBe(invalid.length);
  });

  for (const fixture of invalid) {
    it(`rejects invalid/${fixture.name} with exit 3 and its message at its line`, async () => {
      const r = await run(["validate", "-c", path.relative(ROOT, fixture.path)], { env: fixture.env });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe("");
      const shown = path.relative(ROOT, fixture.path);
      for (const e of fixture.expect) {
        expect(r.stderr).toContain(`${shown}:${e.line}:${e.column}  ${e.pointer}  ${e.message}`);
      }
      expect(r.stderr).not.toMatch(/Internal error|\n\s+at /);
    });
  }

  it("reports every problem of a file at once, in line order", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "zoneform-validate-"));
    await writeFile(
      path.join(dir, "zoneform.yaml"),
      [
        "version: 1",
        "zones:",
        "  - zone_id: 5ababd603b22780302dd8d83498e5172",
        "    page_shield:",
        "      polices: []",
        "    waf:",
        "      owasp: { enabled: true, paranoia_level: 9 }",
        "    logs:",
        "      custom_fields: { request_headers: [X-Foo] }",
        "",
      ].join("\n"),
    );
    const r = await run(["validate"], { cwd: dir });
    expect(r.code).toBe(3);
    const lines = r.stderr.trim().split("\n");
    expect(lines[0]).toBe("Error: 3 problems in the configuration:");
    expect(lines.slice(1)).toEqual([
      "  zoneform.yaml:5:7  /zones/0/page_shield/polices  unknown key 'polices'; did you mean 'policies'?",
      "  zoneform.yaml:7:47  /zones/0/waf/owasp/paranoia_level  must be ≤ 4 (got 9)",
      "  zoneform.yaml:9:42  /zones/0/logs/custom_fields/request_headers/0  header names must be lower " +
        "case: write 'x-foo' instead of 'X-Foo'",
    ]);
  });

  it("loads a directory of files and rejects settings that disagree between them", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "zoneform-validate-"));
    await writeFile(
      path.join(dir, "a.yaml"),
      "version: 1\naccount_id: 0123456789abcdef0123456789abcdef\nzones:\n  - zone_id: " +
        "5ababd603b22780302dd8d83498e5172\n",
    );
    await writeFile(
      path.join(dir, "b.yml"),
      "version: 1\naccount_id: 0123456789abcdef0123456789abcdef\nzones:\n  - zone_id: " +
        "28bf0eba6631b5563247f1b42d9a7f17\n",
    );
    await writeFile(path.join(dir, "notes.txt"), "not yaml");
    expect(await run(["validate", "-c", dir])).toMatchObject({ code: 0 });
    expect((await run(["validate", "-c", "."], { cwd: dir })).stdout).toContain("2 zones in a.yaml, b.yml are valid");

    await writeFile(
      path.join(dir, "c.yaml"),
      "version: 1\naccount_id: ffffffffffffffffffffffffffffffff\nzones:\n  - zone_id: " +
        "5ababd603b22780302dd8d83498e5172\n",
    );
    const r = await run(["validate", "-c", "."], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("c.yaml:2:13  /account_id  account_id differs from the one in a.yaml:2:13");
    expect(r.stderr).toContain(
      "c.yaml:4:14  /zones/0/zone_id  zone 5ababd603b22780302dd8d83498e5172 is declared twice (first at a.yaml:4:14)",
    );
  });

  it("explains a missing default file and a missing path", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "zoneform-validate-"));
    const none = await run(["validate"], { cwd: dir });
    expect(none.code).toBe(3);
    expect(none.stderr).toContain("no configuration found: create zoneform.yaml");
    const missing = await run(["validate", "-c", "nope.yaml"], { cwd: dir });
    expect(missing).toMatchObject({ code: 3, stderr: "Error: nope.yaml: no such file or directory\n" });
    const empty = await run(["validate", "-c", "."], { cwd: dir });
    expect(empty.stderr).toContain("the directory holds no *.yaml or *.yml file");
  });

  it("never prints a secret that came from the environment", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "zoneform-validate-"));
    await writeFile(
      path.join(dir, "zoneform.yaml"),
      "version: 1\nzones:\n  - zone_id: 5ababd603b22780302dd8d83498e5172\n    name: ${env:SECRET_NAME}-x\n  " +
        "  page_shield:\n      enabled: ${env:SECRET_NAME}\n",
    );
    const r = await run(["validate"], { cwd: dir, env: { SECRET_NAME: "hunter2-very-secret" } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("/zones/0/page_shield/enabled  must be true or false (got string '(sensitive)')");
    expect(r.stderr).not.toContain("hunter2");
  });

  it("shows help for validate and lists it in the program's help", async () => {
    const help = await run(["validate", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: zoneform validate [options]");
    expect(help.stdout).toContain("-c, --config <path>");
    expect(help.stdout).toContain("--require-env");
    const top = await run(["--help"]);
    expect(top.stdout).toMatch(/validate \[options\]/);
  });

  it("rejects an unknown option with exit 3", async () => {
    const r = await run(["validate", "--bogus"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("unknown option '--bogus'");
  });
});
