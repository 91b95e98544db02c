// Issue 34: small robustness bugs, each a clear refusal with its documented exit code, no stack trace and
// nothing written. A plan file nested 200 000 levels deep (show and apply ended in "Internal error"), an
// empty --out (plan saved nothing and exited 0), a YAML key that is a list (Node printed the yaml
// package's warning raw), an impossible date (ZONEFORM_NOW=2026-02-30 rolled over to March 2).
import { existsSync, readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { handleProcessWarnings } from "../../src/cli/warnings.js";
import { memoryIO } from "../../src/cli/io.js";
import { NOW_ENV, readInstant } from "../../src/instant.js";
import { MAX_PLAN_JSON_DEPTH, tooDeepAt } from "../../src/json-depth.js";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { expectFailure, runBuilt, STACK } from "./helpers.js";

const emu = TestEmulator.perFile();
const Z = ZONE.com;

const CONFIG = `version: 1
zones:
  - zone_id: ${Z}
    name: example.com
    page_shield:
      enabled: true
      policies:
        - { description: Checkout, action: log, expression: 'http.request.uri.path contains "/checkout"', value: "script-src 'self'" }
`;

describe("a plan file nested deeper than any plan (200 000 levels)", () => {
  it("the plans zoneform writes nest far less than the bound (a real plan, measured)", async () => {
    const dir = await tempDir();
    const out = join(dir, "plan.json");
    const r = await runCli(emu, ["plan", "-c", await writeConfig(CONFIG), "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(out, "utf8");
    // 16 levels leave a margin over the deepest plan of the examples (14); the bound is 64.
    expect(tooDeepAt(text, 16)).toBeUndefined();
    expect(MAX_PLAN_JSON_DEPTH).toBe(64);
  });

  it("show and apply refuse it as a plan file problem: exit 3, where, no stack, nothing written", async () => {
    const dir = await tempDir();
    const out = join(dir, "plan.json");
    expect((await runCli(emu, ["plan", "-c", await writeConfig(CONFIG), "--out", out])).code).toBe(0);
    const plan = JSON.parse(await readFile(out, "utf8"));
    const depth = 200_000;
    plan.zones[0].changes[0].operations[0].body = "@deep@";
    const text = JSON.stringify(plan, null, 2).replace('"@deep@"', `${"[".repeat(depth)}${"]".repeat(depth)}`);
    const deep = join(dir, "deep.json");
    await writeFile(deep, text);
    const at = tooDeepAt(text, 64)!;
    const said = `Error: the plan file ${deep} nests deeper than 64 levels (line ${at.line}, column ${at.column}), far deeper than anything zoneform writes; it was not read any further`;
    await emu.clearRequests();
    for (const argv of [
      ["show", deep],
      ["apply", deep, "--auto-approve", "--api-url", emu.url],
    ]) {
      const r = await runBuilt(argv);
      expect(r.killed).toBe(false);
      expectFailure(r, 3);
      expect(r.stderr.trim()).toBe(said);
    }
    expect(await emu.calls()).toEqual([]);
  }, 30_000);
});

describe("--out with no file name", () => {
  for (const [command, args] of [
    ["plan", ["-c", "CONFIG"]],
    ["export", ["--zone", Z]],
    ["inventory", ["--zone", Z, "--pages", "example.com/checkout*"]],
  ] as const) {
    for (const value of ["", "   "]) {
      it(`${command} --out ${JSON.stringify(value)}: exit 3 before anything is read or written`, async () => {
        const dir = await tempDir();
        const config = await writeConfig(CONFIG, "zoneform.yaml", dir);
        await emu.clearRequests();
        const argv = [command, ...args.map((a) => (a === "CONFIG" ? config : a)), "--out", value];
        const r = await runCli(emu, argv, { cwd: dir });
        expect(r.code).toBe(3);
        expect(r.stderr).toBe(
          `Error: --out needs a file name, got ${JSON.stringify(value)}; give the path of the file\n`,
        );
        expect(r.stdout).toBe("");
        expect(await emu.calls()).toEqual([]);
        expect(readdirSync(dir)).toEqual(["zoneform.yaml"]);
      });
    }
  }

  // Every other option that names a file takes the same refusal.
  for (const [argv, flag] of [
    [["waf-migration", "config", "--zone", Z, "--write"], "--write"],
    [["emulator", "--port", "0", "--state"], "--state"],
    [["emulator", "--port", "0", "--url-file"], "--url-file"],
  ] as const) {
    it(`${argv[0]} ${flag} "": exit 3 before anything is read, written or started`, async () => {
      const dir = await tempDir();
      await emu.clearRequests();
      const r = await runCli(emu, [...argv, ""], { cwd: dir });
      expect(r.code).toBe(3);
      expect(r.stderr).toBe(`Error: ${flag} needs a file name, got ""; give the path of the file\n`);
      expect(r.stdout).toBe("");
      expect(await emu.calls()).toEqual([]);
      expect(readdirSync(dir)).toEqual([]);
    });
  }
});

describe("a YAML key that is a list or a mapping", () => {
  it("is a finding of the file at its line (exit 3); no Node warning leaks to stderr", async () => {
    const config = await writeConfig(`version: 1\n? [a, b]\n: 1\nzones: []\n`);
    const r = await runBuilt(["validate", "-c", config]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `${config}:2:3  /["a","b"]  the key ["a","b"] is a list: a key must be plain text (a name)`,
    );
    expect(r.stderr).not.toMatch(/\(node:\d+\)|Warning:|--trace-warnings/);
    expect(r.stderr).not.toMatch(STACK);
    const map = await writeConfig(`version: 1\nzones: []\n? {x: 1}\n: 2\n`);
    const m = await runBuilt(["validate", "-c", map]);
    expect(m.code).toBe(3);
    expect(m.stderr).toContain(`${map}:3:3  /{"x":1}  the key {"x":1} is a mapping: a key must be plain text (a name)`);
    expect(m.stderr).not.toMatch(/\(node:\d+\)|Warning:/);
  });

  it("the CLI replaces Node's warning printer: silent, or one printable note with --verbose", async () => {
    const saved = process.listeners("warning");
    const once = (argv: string[]) =>
      new Promise<string>((resolve) => {
        const { io, stderr } = memoryIO();
        handleProcessWarnings(argv, io);
        process.once("warning", () => setImmediate(() => resolve(stderr())));
        process.emitWarning("a dependency says\u001b[2J something\nsecond line", "DeprecationWarning");
      });
    try {
      expect(await once(["plan"])).toBe("");
      expect(await once(["plan", "--verbose"])).toBe(
        "note: Node.js DeprecationWarning: a dependency says\\u001b[2J something\n",
      );
    } finally {
      process.removeAllListeners("warning");
      for (const l of saved) process.on("warning", l);
    }
  });
});

describe("a day or time that does not exist is refused, never rolled over", () => {
  it("readInstant: the calendar, leap years, hours, minutes, seconds and offsets", () => {
    expect(readInstant("2024-02-29")).toEqual({ ms: Date.UTC(2024, 1, 29) });
    expect(readInstant("2000-02-29T23:59:59.999+23:59")).toHaveProperty("ms");
    const refused: Array<[string, string]> = [
      ["2026-02-30", "February 2026 has no day 30 (it has 28)"],
      ["2100-02-29", "February 2100 has no day 29 (it has 28)"],
      ["2026-04-31T10:00:00Z", "April 2026 has no day 31 (it has 30)"],
      ["2026-00-10", "there is no month 00"],
      ["2026-13-01", "there is no month 13"],
      ["2026-01-00", "January 2026 has no day 00 (it has 31)"],
      ["2026-01-01T24:00:00Z", "there is no hour 24 (00 to 23)"],
      ["2026-01-01T23:60Z", "there is no minute 60 (00 to 59)"],
      ["2026-01-01T23:59:60Z", "there is no second 60 (00 to 59)"],
      ["2026-01-01T10:00:00+25:00", "there is no offset +25:00 (at most ±23:59)"],
    ];
    for (const [text, detail] of refused) expect(readInstant(text), text).toMatchObject({ detail });
  });

  it("ZONEFORM_NOW=2026-02-30: audit, inventory, export and whoami exit 3 naming the day; nothing is read", async () => {
    await emu.clearRequests();
    for (const argv of [
      ["audit", "--zone", Z],
      ["inventory", "--zone", Z, "--pages", "example.com/checkout*"],
      ["export", "--zone", Z],
      ["whoami"],
    ]) {
      const r = await runCli(emu, argv, { env: { [NOW_ENV]: "2026-02-30" } });
      expect(r.code, argv[0]).toBe(3);
      expect(r.stderr).toBe(
        `Error: ${NOW_ENV}="2026-02-30" is not an ISO 8601 date or date-time with Z or an offset, e.g. 2026-11-25 ` +
          "or 2026-11-25T12:00:00Z: February 2026 has no day 30 (it has 28)\n",
      );
    }
    expect(await emu.calls()).toEqual([]);
  });

  it("the emulator's --now and ZONEFORM_NOW, and its admin API's dates: refused with what does not exist", async () => {
    const flag = await runCli(undefined, ["emulator", "--now", "2026-02-30T12:00:00Z"]);
    expect(flag.code).toBe(3);
    expect(flag.stderr).toContain(
      '--now "2026-02-30T12:00:00Z": expected an ISO 8601 date or date-time with Z or an offset, e.g. 2026-11-25 ' +
        "or 2026-11-25T12:00:00Z; February 2026 has no day 30 (it has 28)",
    );
    const env = await runCli(undefined, ["emulator"], { env: { [NOW_ENV]: "2026-06-31" } });
    expect(env.code).toBe(3);
    expect(env.stderr).toContain(`${NOW_ENV} "2026-06-31": expected an ISO 8601`);
    expect(env.stderr).toContain("June 2026 has no day 31 (it has 30)");
    const before = JSON.stringify(emu.state().zones.find((z) => z.id === Z));
    const r = await emu.callAdmin("POST", "inventory", {
      zone_id: Z,
      scripts: 3,
      connections: 0,
      cookies: 0,
      malicious_ratio: 0,
      now: "2026-02-30T00:00:00Z",
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain("February 2026 has no day 30 (it has 28)");
    expect(JSON.stringify(emu.state().zones.find((z) => z.id === Z))).toBe(before);
    const token = await emu.callAdmin("PUT", "tokens", { token: "t-1", expires_on: "2026-09-31T00:00:00Z" });
    expect(token.status).toBe(400);
    expect(token.body.error).toContain("expires_on must be an ISO date-time");
  });
});

it("the test wrote nothing outside its temporary directories", () => {
  expect(existsSync(join(process.cwd(), "plan.json"))).toBe(false);
});
