// Issue 16.6, one vocabulary: `--zone` takes an id or a name in every command; `--auto-approve` and its
// alias `--yes` confirm wherever a command asks; a one-zone command says so and refuses a second zone;
// no command overwrites a file without --force; help goes to stdout; one colour rule; every JSON
// output carries format_version. Run in-process against the emulator over real HTTP.
import { readFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/program.js";
import { TOKEN, TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const ESC = "\u001b[";
const S3 = "s3://audit-logs/zone/{DATE}?region=eu-west-1";

/** example.com with Page Shield on and one policy: a change against the seed. */
const CONFIG = `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - description: Checkout allow-list
          action: allow
          expression: http.request.uri.path contains "/checkout"
          value: script-src 'self' https://js.stripe.com
`;

/** A zone still on the previous WAF managed rules (the seed's zones are migrated). */
async function legacyZone(name: string): Promise<string> {
  return (await emu.admin<{ id: string }>("POST", "/zones", { name, plan: "pro", waf_migration: "previous" })).id;
}

/** The `GET zones?name=` lookups the run made. */
async function nameLookups(): Promise<string[]> {
  return (await emu.requests())
    .filter((r) => r.path.endsWith("/client/v4/zones") && r.method === "GET")
    .map((r) => r.query.name ?? "");
}

describe("--zone takes a zone name wherever it takes an id", () => {
  it("audit: the name is looked up once and audited as the id", async () => {
    const byId = JSON.parse(
      (await runCli(emu, ["audit", "--zone", ZONE.com, "--format", "json", "--fail-on", "none"])).stdout,
    );
    await emu.clearRequests();
    const r = await runCli(emu, ["audit", "--zone", "example.com", "--format", "json", "--fail-on", "none"]);
    expect(r.code, r.stderr).toBe(0);
    const byName = JSON.parse(r.stdout);
    expect(byName.zones.map((z: { zone_id: string }) => z.zone_id)).toEqual([ZONE.com]);
    expect(byName.totals).toEqual(byId.totals);
    expect(await nameLookups()).toEqual(["example.com"]);
  });

  it("resolves each name once, concurrently, and drops a zone named twice (by name or by id)", async () => {
    await emu.clearRequests();
    const r = await runCli(emu, [
      "audit",
      "--zone",
      "example.com",
      "--zone",
      "EXAMPLE.COM",
      "--zone",
      `example.net,${ZONE.com}`,
      "--format",
      "json",
      "--fail-on",
      "none",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).zones.map((z: { zone_id: string }) => z.zone_id)).toEqual([ZONE.com, ZONE.net]);
    expect((await nameLookups()).sort()).toEqual(["example.com", "example.net"]);
  });

  it("export", async () => {
    const r = await runCli(emu, ["export", "--zone", "example.com", "--sections", "page_shield"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`zone_id: ${ZONE.com}`);
  });

  it("certificates", async () => {
    const r = await runCli(emu, ["certificates", "--zone", "example.com", "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).zones[0].zone_id).toBe(ZONE.com);
  });

  it("csp suggest", async () => {
    const r = await runCli(emu, ["csp", "suggest", "--zone", "example.com"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`CSP suggestion for zone ${ZONE.com}`);
  });

  it("logpush challenge", async () => {
    await emu.clearRequests();
    const r = await runCli(emu, ["logpush", "challenge", "--zone", "example.com", "--destination", S3]);
    expect(r.code, r.stderr).toBe(0);
    expect(await emu.calls()).toEqual(["GET zones", `POST zones/${ZONE.com}/logpush/ownership`]);
  });

  it("waf-migration check, config, status and start", async () => {
    const z = await legacyZone("legacy.example");
    const check = await runCli(emu, ["waf-migration", "check", "--zone", "legacy.example"]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain(z);
    const config = await runCli(emu, ["waf-migration", "config", "--zone", "legacy.example"]);
    expect(config.code, config.stderr).toBe(0);
    expect(config.stdout).toContain(`zone_id: ${z}`);
    const start = await runCli(emu, [
      "waf-migration",
      "start",
      "--zone",
      "legacy.example",
      "--mode",
      "pending",
      "--yes",
    ]);
    expect(start.code, start.stderr).toBe(0);
    const status = await runCli(emu, ["waf-migration", "status", "--zone", "Legacy.Example."]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`Zone ${z}: migration_state done`);
  });

  it("plan and drift match a name (or id) from the file, in any case, with no lookup", async () => {
    const config = await writeConfig(CONFIG);
    await emu.clearRequests();
    for (const zone of ["example.com", "EXAMPLE.com.", ZONE.com.toUpperCase()]) {
      const plan = await runCli(emu, ["plan", "-c", config, "--zone", zone]);
      expect(plan.code, `${zone}: ${plan.stderr}`).toBe(0);
      expect(plan.stdout).toContain("page_shield_policy");
      expect((await runCli(emu, ["drift", "-c", config, "--zone", zone])).code, zone).toBe(2);
    }
    expect(await nameLookups()).toEqual([]);
    const other = await runCli(emu, ["plan", "-c", config, "--zone", "example.net"]);
    expect(other.code).toBe(3);
    expect(other.stderr).toContain("no such zone in the configuration");
  });

  it("says when no zone of that name is visible to the token (exit 1), before any other call", async () => {
    for (const argv of [
      ["audit", "--zone", "nosuch.example"],
      ["export", "--zone", "example.com", "--zone", "nosuch.example"],
      ["certificates", "--zone", "nosuch.example"],
      ["csp", "suggest", "--zone", "nosuch.example"],
      ["logpush", "challenge", "--zone", "nosuch.example", "--destination", S3],
      ["waf-migration", "status", "--zone", "nosuch.example"],
    ]) {
      await emu.clearRequests();
      const r = await runCli(emu, argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr).toContain("Error: no zone named nosuch.example is visible to this token");
      expect(
        (await emu.calls()).every((c) => c === "GET zones"),
        argv.join(" "),
      ).toBe(true);
    }
  });

  it("refuses a value that is neither an id nor a name (exit 3, no call)", async () => {
    await emu.clearRequests();
    for (const argv of [
      ["audit", "--zone", "example"],
      ["certificates", "--zone", "https://example.com"],
      ["waf-migration", "status", "--zone", "1.2.3.4"],
    ]) {
      const r = await runCli(emu, argv);
      expect(r.code, argv.join(" ")).toBe(3);
      expect(r.stderr).toContain("expected a zone id (32 hex characters) or a zone name such as example.com");
    }
    expect(await emu.calls()).toEqual([]);
  });
});

describe("one-zone commands", () => {
  it("csp suggest --zone a --zone b is a usage error saying it takes one zone, with no call", async () => {
    await emu.clearRequests();
    const r = await runCli(emu, ["csp", "suggest", "--zone", "example.com", "--zone", "example.net"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      "Error: csp suggest takes one --zone (a policy belongs to one zone); got 2: example.com, example.net. " +
        "Run it once per zone.\n",
    );
    expect(await emu.calls()).toEqual([]);
  });

  it("logpush challenge and waf-migration refuse a second zone too, instead of keeping the last", async () => {
    await emu.clearRequests();
    const logpush = await runCli(emu, [
      "logpush",
      "challenge",
      "--zone",
      ZONE.com,
      "--zone",
      ZONE.net,
      "--destination",
      S3,
    ]);
    expect(logpush.code).toBe(3);
    expect(logpush.stderr).toContain("logpush challenge takes one --zone");
    for (const sub of ["check", "config", "status"]) {
      const r = await runCli(emu, ["waf-migration", sub, "--zone", ZONE.com, "--zone", "example.net"]);
      expect(r.code, sub).toBe(3);
      expect(r.stderr).toContain(`waf-migration ${sub} takes one --zone (the migration is per zone)`);
    }
    expect(await emu.calls()).toEqual([]);
  });

  /** The help text of `--zone` (which may wrap over lines). */
  async function zoneHelp(path: string[]): Promise<string> {
    const help = (await runCli(undefined, [...path, "--help"])).stdout;
    const start = help.indexOf("--zone");
    return help.slice(start, help.indexOf("\n  -", start)).replace(/\s+/g, " ");
  }

  it("say 'one zone' in --help where other commands say 'repeatable'", async () => {
    for (const path of [
      ["csp", "suggest"],
      ["logpush", "challenge"],
      ["waf-migration", "start"],
      ["waf-migration", "status"],
    ]) {
      const text = await zoneHelp(path);
      expect(text, path.join(" ")).toContain("one zone");
      expect(text).not.toContain("repeatable");
    }
    for (const path of [["audit"], ["export"], ["certificates"], ["plan"], ["apply"], ["drift"]]) {
      expect(await zoneHelp(path), path.join(" ")).toContain("repeatable");
    }
  });

  it("every flag whose help says repeatable takes repeats", async () => {
    await emu.clearRequests();
    const r = await runCli(emu, [
      "audit",
      "--zone",
      ZONE.com,
      "--host",
      "example.com",
      "--host",
      "www.example.com",
      "--page-url",
      "*a*",
      "--page-url",
      "*b*",
      "--fail-on",
      "none",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((await emu.requests())[0]!.query).toMatchObject({
      hosts: "example.com,www.example.com",
      page_url: "*a*,*b*",
    });
    const csp = await runCli(emu, [
      "csp",
      "suggest",
      "--zone",
      ZONE.com,
      "--host",
      "example.com",
      "--host",
      "www.example.com",
    ]);
    expect(csp.code, csp.stderr).toBe(0);
    const cert = await runCli(emu, ["certificates", "--zone", ZONE.com, "--zone", ZONE.net, "--format", "json"]);
    expect(JSON.parse(cert.stdout).zones).toHaveLength(2);
  });
});

describe("--auto-approve, and --yes as its alias, confirm everywhere", () => {
  it.each(["--auto-approve", "--yes"])("apply %s", async (flag) => {
    const config = await writeConfig(CONFIG);
    const r = await runCli(emu, ["apply", "-c", config, flag]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Apply complete!");
  });

  it.each(["--auto-approve", "--yes"])("waf-migration start %s", async (flag) => {
    const z = await legacyZone("legacy.example");
    const r = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending", flag]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Migrated:");
  });

  it("without either, both commands name both flags when stdin is not a terminal, and write nothing", async () => {
    const apply = await runCli(emu, ["apply", "-c", await writeConfig(CONFIG)]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain("pass --auto-approve (or --yes)");
    const z = await legacyZone("legacy.example");
    await emu.clearRequests();
    const start = await runCli(emu, ["waf-migration", "start", "--zone", z, "--mode", "pending"]);
    expect(start.code).toBe(1);
    expect(start.stderr).toContain("pass --auto-approve (or --yes)");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });

  it("both are in the help of every command that asks", async () => {
    for (const path of [["apply"], ["waf-migration", "start"]]) {
      const help = (await runCli(undefined, [...path, "--help"])).stdout;
      expect(help, path.join(" ")).toMatch(/--auto-approve\s+do not ask for confirmation/);
      expect(help, path.join(" ")).toMatch(/--yes\s+alias of --auto-approve/);
    }
  });
});

describe("no file is overwritten without --force", () => {
  it("plan --out: refused before any API call (exit 3), replaced atomically and 0600 with --force", async () => {
    const dir = await tempDir();
    const config = await writeConfig(CONFIG, "zoneform.yaml", dir);
    const out = join(dir, "plan.json");
    await writeFile(out, "keep me", { mode: 0o644 });
    await emu.clearRequests();
    const refused = await runCli(emu, ["plan", "-c", config, "--out", out]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toBe(`Error: --out ${out}: the file exists; pass --force to overwrite it\n`);
    expect(await readFile(out, "utf8")).toBe("keep me");
    expect(await emu.calls()).toEqual([]);
    const forced = await runCli(emu, ["plan", "-c", config, "--out", out, "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(await readFile(out, "utf8")).format_version).toBe(5);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).sort()).toEqual(["plan.json", "zoneform.yaml"]);
  });

  it("plan --out a relative path is relative to the working directory", async () => {
    const dir = await tempDir();
    const config = await writeConfig(CONFIG, "zoneform.yaml", dir);
    expect((await runCli(emu, ["plan", "-c", config, "--out", "p.json"], { cwd: dir })).code).toBe(0);
    expect((await runCli(emu, ["plan", "-c", config, "--out", "p.json"], { cwd: dir })).code).toBe(3);
  });

  it("export --out: refused before any API call, replaced with --force", async () => {
    const dir = await tempDir();
    const out = join(dir, "exported.yaml");
    await writeFile(out, "keep me");
    await emu.clearRequests();
    const refused = await runCli(emu, ["export", "--zone", ZONE.com, "--sections", "page_shield", "--out", out]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`--out ${out}: the file exists; pass --force to overwrite it`);
    expect(await readFile(out, "utf8")).toBe("keep me");
    expect(await emu.calls()).toEqual([]);
    const forced = await runCli(emu, [
      "export",
      "--zone",
      ZONE.com,
      "--sections",
      "page_shield",
      "--out",
      out,
      "--force",
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(out, "utf8")).toContain(`zone_id: ${ZONE.com}`);
    expect(await readdir(dir)).toEqual(["exported.yaml"]);
  });

  it("waf-migration config --write: refused before any API call, replaced with --force", async () => {
    const z = await legacyZone("legacy.example");
    const dir = await tempDir();
    await writeFile(join(dir, "waf.yaml"), "keep me");
    await emu.clearRequests();
    const refused = await runCli(emu, ["waf-migration", "config", "--zone", z, "--write", "waf.yaml"], { cwd: dir });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("--write waf.yaml: the file exists; pass --force to overwrite it");
    expect(await readFile(join(dir, "waf.yaml"), "utf8")).toBe("keep me");
    expect(await emu.calls()).toEqual([]);
    const forced = await runCli(emu, ["waf-migration", "config", "--zone", z, "--write", "waf.yaml", "--force"], {
      cwd: dir,
    });
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(join(dir, "waf.yaml"), "utf8")).toContain(`zone_id: ${z}`);
  });

  it("--force is in the help of every command that writes a file", async () => {
    for (const path of [["plan"], ["export"], ["waf-migration", "config"]]) {
      expect((await runCli(undefined, [...path, "--help"])).stdout, path.join(" ")).toMatch(
        /--force\s+overwrite the --(out|write) file if it exists/,
      );
    }
  });
});

describe("help goes to stdout", () => {
  it("bare zoneform prints the help on stdout and exits 0", async () => {
    const r = await runCli(undefined, []);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: zoneform /);
    expect(r.stdout).toContain("Commands:");
    expect(r.stderr).toBe("");
  });

  it.each([
    [["help", "plan"], "Usage: zoneform plan"],
    [["plan", "--help"], "Usage: zoneform plan"],
    [["help"], "Usage: zoneform "],
    [["--help"], "Usage: zoneform "],
    [["help", "waf-migration", "start"], "Usage: zoneform waf-migration start"],
    [["waf-migration", "help", "start"], "Usage: zoneform waf-migration start"],
    [["waf-migration"], "Usage: zoneform waf-migration"],
    [["csp"], "Usage: zoneform csp"],
    [["help", "validate"], "Usage: zoneform validate"],
  ])("%j", async (argv, usage) => {
    const r = await runCli(undefined, argv);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(usage)).toBe(true);
    expect(r.stderr).toBe("");
  });

  it.each([["--version"], ["-V"], ["plan", "--version"]])(
    "%j prints package.json's version on stdout",
    async (...argv) => {
      const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as {
        version: string;
      };
      const r = await runCli(undefined, argv);
      expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
    },
  );

  it("errors stay on stderr", async () => {
    const r = await runCli(undefined, ["no-such-command"]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("unknown command 'no-such-command'");
  });
});

describe("colour", () => {
  async function run(argv: string[], opts: { tty: boolean; env?: NodeJS.ProcessEnv }) {
    const { io, stdout } = memoryIO({ tty: opts.tty, env: { CLOUDFLARE_API_TOKEN: TOKEN, ...opts.env } });
    const code = await main(argv, io);
    return { code, stdout: stdout() };
  }

  const cases: Array<[string, boolean, NodeJS.ProcessEnv, string[], boolean]> = [
    ["a terminal", true, {}, [], true],
    ["a pipe", false, {}, [], false],
    ["TERM=dumb on a terminal", true, { TERM: "dumb" }, [], false],
    ["NO_COLOR on a terminal", true, { NO_COLOR: "1" }, [], false],
    ["FORCE_COLOR=1 on a pipe", false, { FORCE_COLOR: "1" }, [], true],
    ["FORCE_COLOR=true with TERM=dumb", false, { FORCE_COLOR: "true", TERM: "dumb" }, [], true],
    ["FORCE_COLOR=0 on a terminal", true, { FORCE_COLOR: "0" }, [], false],
    ["--no-color with FORCE_COLOR", true, { FORCE_COLOR: "1" }, ["--no-color"], false],
  ];

  it.each(cases)("validate on %s", async (_, tty, env, flags, coloured) => {
    const config = await writeConfig(CONFIG);
    const r = await run(["validate", "-c", config, ...flags], { tty, env });
    expect(r.code).toBe(0);
    expect(r.stdout.includes(ESC)).toBe(coloured);
  });

  it.each(cases)("plan on %s", async (_, tty, env, flags, coloured) => {
    const config = await writeConfig(CONFIG);
    const r = await run(["plan", "-c", config, "--api-url", emu.url, ...flags], { tty, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("page_shield_policy");
    expect(r.stdout.includes(ESC)).toBe(coloured);
  });
});

describe("every JSON output carries format_version", () => {
  it.each([
    ["plan --format json", async () => ["plan", "-c", await writeConfig(CONFIG), "--format", "json"], 5],
    ["audit --format json", async () => ["audit", "--zone", ZONE.com, "--format", "json", "--fail-on", "none"], 1],
    ["certificates --format json", async () => ["certificates", "--zone", ZONE.com, "--format", "json"], 1],
    [
      "waf-migration config --format json",
      async () => ["waf-migration", "config", "--zone", await legacyZone("legacy.example"), "--format", "json"],
      1,
    ],
  ] as const)("%s", async (_, argv, version) => {
    const r = await runCli(emu, await argv());
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).format_version).toBe(version);
  });
});
