// Issue 27, item 9: zoneform's own environment, broken. A lock directory that is a file or a FIFO, a
// configuration directory that is missing or cannot be read, a FIFO, socket or device inside one: each
// is one line (no stack trace, no "Internal error") with its documented exit code, at once (nothing
// blocks on opening a FIFO: types are read with stat before anything is opened), and before any API call.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfigFiles } from "../../src/config/load.js";
import { lockZones } from "../../src/engine/lock.js";
import { RuntimeError, UsageError } from "../../src/errors.js";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { STACK, expectFailure, runBuilt } from "./helpers.js";

const emu = TestEmulator.perFile();

/** zoneform's own work on a broken path must end well within this (issue 27: "in under a second"). */
const AT_ONCE_MS = 1000;

const CONFIG = `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    page_shield:
      enabled: true
`;

let root: string;
let config: string;
const mkfifo = (path: string) => execFileSync("mkfifo", [path]);

beforeAll(async () => {
  root = await tempDir("zoneform-env-");
  config = await writeConfig(CONFIG, "zoneform.yaml", root);
});

/** One `Error: …` line, exactly, and its exit code; no stack trace, no internal error. */
function expectOneLine(r: { code: number; stdout: string; stderr: string }, code: number, line: string): void {
  expect(r.stderr).toBe(`Error: ${line}\n`);
  expect(r.stderr).not.toMatch(STACK);
  expect(r.code, r.stderr).toBe(code);
}

describe("the apply lock directory", () => {
  const fix = "set ZONEFORM_LOCK_DIR to a directory zoneform may write to";

  it("is refused when ZONEFORM_LOCK_DIR names a file: exit 3, one line, no API call", async () => {
    const file = join(root, "lock-file");
    await writeFile(file, "not a directory\n");
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", "-c", config, "--auto-approve"], { env: { ZONEFORM_LOCK_DIR: file } });
    expectOneLine(r, 3, `the apply lock directory ${file} is a file, not a directory: ${fix}`);
    expect(await emu.calls()).toEqual([]);
  });

  it("is refused when ZONEFORM_LOCK_DIR names a FIFO, at once, without opening it", async () => {
    const fifo = join(root, "lock-fifo");
    mkfifo(fifo);
    await emu.clearRequests();
    const r = await runCli(emu, ["apply", "-c", config, "--auto-approve"], { env: { ZONEFORM_LOCK_DIR: fifo } });
    expectOneLine(r, 3, `the apply lock directory ${fifo} is a FIFO (named pipe), not a directory: ${fix}`);
    expect(await emu.calls()).toEqual([]);
    const started = Date.now();
    await expect(
      lockZones([ZONE.com], { env: { ZONEFORM_LOCK_DIR: fifo }, command: "apply", api: emu.url }),
    ).rejects.toThrow(UsageError);
    expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
  });

  it("is refused when it cannot be created (a file on its path)", async () => {
    const below = join(root, "lock-file-2", "locks");
    await writeFile(join(root, "lock-file-2"), "");
    const r = await runCli(emu, ["apply", "-c", config, "--auto-approve"], { env: { ZONEFORM_LOCK_DIR: below } });
    expectOneLine(r, 3, `the apply lock directory ${below} cannot be used (ENOTDIR): ${fix}`);
  });

  it("gives exit 1 (not 3) when the default directory, not the variable, is at fault", async () => {
    await expect(ensureDefaultIsFile()).rejects.toThrow(RuntimeError);
  });

  it("does not block on a lock file that is a FIFO: the zone is refused as held, exit 1, at once", async () => {
    const dir = await tempDir("zoneform-locks-");
    const name = `${ZONE.com}-${createHash("sha256").update(emu.url).digest("hex").slice(0, 12)}.lock`;
    mkfifo(join(dir, name));
    await emu.clearRequests();
    const started = Date.now();
    const r = await runCli(emu, ["apply", "-c", config, "--auto-approve"], { env: { ZONEFORM_LOCK_DIR: dir } });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.stderr).toContain(
      `zone ${ZONE.com} is being applied by another zoneform (a process whose lock file cannot be read); ` +
        `nothing was written`,
    );
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code).toBe(1);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});

/** lockZones with TMPDIR pointing where the default directory `zoneform-locks` is a file. */
async function ensureDefaultIsFile(): Promise<unknown> {
  const tmp = await tempDir("zoneform-tmp-");
  await writeFile(join(tmp, "zoneform-locks"), "");
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    return await lockZones([ZONE.com], { env: {}, command: "apply", api: emu.url }).then((release) => release());
  } finally {
    process.env.TMPDIR = saved;
  }
}

describe("a configuration directory", () => {
  const special =
    "a configuration directory may hold no FIFO, device or socket (move it out, or give -c a directory without it)";
  let socketServer: Server | undefined;
  afterAll(() => socketServer?.close());

  /** A directory with one good file, `a.yaml`. */
  async function configDir(): Promise<string> {
    const d = await tempDir("zoneform-confdir-");
    await writeConfig(CONFIG, "a.yaml", d);
    return d;
  }

  it("refuses a *.yaml FIFO (it used to be skipped, exit 0): exit 3, one line, no API call, at once", async () => {
    const d = await configDir();
    mkfifo(join(d, "zones.yaml"));
    await emu.clearRequests();
    const r = await runCli(emu, ["plan", "-c", d]);
    expectOneLine(r, 3, `${join(d, "zones.yaml")}: is a FIFO (named pipe): ${special}`);
    expect(await emu.calls()).toEqual([]);
    const started = Date.now();
    await expect(readConfigFiles(d, root)).rejects.toThrow(/is a FIFO/);
    expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
  });

  it("refuses a FIFO whatever its name", async () => {
    const d = await configDir();
    mkfifo(join(d, "notes"));
    const r = await runCli(undefined, ["validate", "-c", d]);
    expectOneLine(r, 3, `${join(d, "notes")}: is a FIFO (named pipe): ${special}`);
  });

  it("refuses a socket", async () => {
    const d = await configDir();
    const path = join(d, "agent.sock");
    socketServer = createServer();
    await new Promise<void>((resolve) => socketServer!.listen(path, resolve));
    const r = await runCli(undefined, ["validate", "-c", d]);
    expectOneLine(r, 3, `${path}: is a socket: ${special}`);
  });

  it("refuses a *.yaml link to a device without opening it", async () => {
    const d = await configDir();
    await symlink("/dev/zero", join(d, "zones.yaml"));
    const r = await runCli(undefined, ["validate", "-c", d]);
    expectOneLine(r, 3, `${join(d, "zones.yaml")}: is a device, not a regular file: give the path of a file`);
  });

  it("never quotes the environment through a link to /proc/self/environ, nor any file outside the directory", async () => {
    // A pull request's link: the Action runs zoneform in its own process, whose environment holds the runner's.
    const d = await configDir();
    await symlink("/proc/self/environ", join(d, "zones.yaml"));
    const env = { SOME_RUNNER_SECRET: "runner-secret-value-93" };
    for (const argv of [
      ["validate", "-c", d],
      ["validate", "-c", join(d, "zones.yaml")],
    ]) {
      const r = await runCli(undefined, argv, { env });
      expect(r.code).toBe(3);
      expect(r.stdout + r.stderr).not.toContain("SOME_RUNNER_SECRET");
      expect(r.stderr).toContain("is a link to a file outside the configuration's directory");
    }
    // A link inside the directory is read as its file; a NUL byte in a file is refused without a quote.
    const inside = await configDir();
    await writeFile(join(inside, "b.txt"), `version: 1\nzones: []\n`);
    await symlink(join(inside, "b.txt"), join(inside, "b.yaml"));
    expect((await runCli(undefined, ["validate", "-c", inside])).code).toBe(0);
    const nul = await configDir();
    await writeFile(join(nul, "c.yaml"), "version: 1\nzones: []\n# SECRET=abc\u0000def\n");
    const r = await runCli(undefined, ["validate", "-c", nul]);
    expectOneLine(
      r,
      3,
      `${join(nul, "c.yaml")}:3  the file holds a NUL byte (line 3): it is not a YAML text file, and nothing of it is shown`,
    );
  });

  it("refuses a *.yaml entry that is a directory (it used to be skipped)", async () => {
    const d = await configDir();
    await mkdir(join(d, "more.yaml"));
    const r = await runCli(undefined, ["validate", "-c", d]);
    expectOneLine(
      r,
      3,
      `${join(d, "more.yaml")}: is a directory: every *.yaml or *.yml entry of a configuration directory is ` +
        `read as a file (rename it)`,
    );
  });

  it("still ignores subdirectories and other regular files", async () => {
    const d = await configDir();
    await mkdir(join(d, ".git"));
    await writeFile(join(d, "README.md"), "notes\n");
    const r = await runCli(undefined, ["validate", "-c", d]);
    expect(r.code, r.stderr).toBe(0);
  });

  it("says a missing directory is missing, and a path through a file too", async () => {
    const missing = join(root, "no-such-dir");
    expectOneLine(await runCli(undefined, ["validate", "-c", missing]), 3, `${missing}: no such file or directory`);
    const through = join(config, "zones");
    expectOneLine(await runCli(undefined, ["validate", "-c", through]), 3, `${through}: no such file or directory`);
  });

  it("says a path that cannot be looked at cannot be read (a symlink loop), not that it is missing", async () => {
    const loop = join(root, "loop");
    await symlink(loop, loop);
    expectOneLine(await runCli(undefined, ["validate", "-c", loop]), 3, `${loop}: cannot be read (ELOOP)`);
  });

  it.skipIf(process.getuid?.() === 0)(
    "refuses a directory that cannot be read (root reads every directory)",
    async () => {
      const d = await configDir();
      await chmod(d, 0o000);
      try {
        expectOneLine(await runCli(undefined, ["validate", "-c", d]), 3, `${d}: the directory cannot be read (EACCES)`);
      } finally {
        await chmod(d, 0o700);
      }
    },
  );
});

describe("other files a command reads", () => {
  it("refuses `inventory --merge` on a FIFO with exit 3, at once, before any API call", async () => {
    const fifo = join(root, "inventory.yaml");
    mkfifo(fifo);
    await emu.clearRequests();
    const r = await runCli(emu, ["inventory", "--zone", ZONE.com, "--pages", "example.com/checkout*", "--merge", fifo]);
    expectOneLine(r, 3, `--merge ${fifo}: is a FIFO (named pipe), not a regular file: give the path of a file`);
    expect(await emu.calls()).toEqual([]);
  });
});

describe("the built CLI, as a child process killed at a deadline (a hang is the child's, not the suite's)", () => {
  const DEADLINE_MS = 20_000;

  it(
    "refuses a config directory holding a *.yaml FIFO with exit 3 and does not hang",
    async () => {
      const d = await tempDir("zoneform-confdir-");
      await writeConfig(CONFIG, "a.yaml", d);
      mkfifo(join(d, "b.yaml"));
      const r = await runBuilt(["plan", "-c", d, "--api-url", emu.url], { deadlineMs: DEADLINE_MS });
      expect(r.killed, "the run hung and was killed").toBe(false);
      expectFailure(r, 3);
      expect(r.stderr).toBe(
        `Error: ${join(d, "b.yaml")}: is a FIFO (named pipe): a configuration directory may hold no FIFO, ` +
          `device or socket (move it out, or give -c a directory without it)\n`,
      );
      expect(await emu.calls()).toEqual([]);
    },
    DEADLINE_MS + 10_000,
  );

  it(
    "refuses ZONEFORM_LOCK_DIR on a FIFO with exit 3 and does not hang",
    async () => {
      const fifo = join(root, "built-lock-fifo");
      mkfifo(fifo);
      const r = await runBuilt(["apply", "-c", config, "--auto-approve", "--api-url", emu.url], {
        deadlineMs: DEADLINE_MS,
        env: { ZONEFORM_LOCK_DIR: fifo },
      });
      expect(r.killed, "the run hung and was killed").toBe(false);
      expectFailure(r, 3);
      expect(r.stderr).toBe(
        `Error: the apply lock directory ${fifo} is a FIFO (named pipe), not a directory: set ` +
          `ZONEFORM_LOCK_DIR to a directory zoneform may write to\n`,
      );
      expect(await emu.calls()).toEqual([]);
    },
    DEADLINE_MS + 10_000,
  );
});
