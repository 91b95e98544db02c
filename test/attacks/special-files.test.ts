// Issue 15, "hangs and unbounded memory": a configuration or a saved plan that is not a regular file.
// `-c` on a FIFO used to block forever in open(), `-c /dev/zero` grew past 12 GB. Each must be refused
// at once with exit 3 and a message saying what the path is, before any API call. The built CLI runs
// as a child process killed at a deadline, so a regression hangs the child, not the suite.
import { execFileSync } from "node:child_process";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { TestEmulator, tempDir } from "../helpers/cli.js";
import { expectFailure, runBuilt } from "./helpers.js";

const emu = TestEmulator.perFile();

/**
 * Well under the test's timeout: a run that blocks (on a FIFO, or reading /dev/zero) is killed here and
 * fails the test. Generous, so that a loaded machine never fails a run that refused at once.
 */
const DEADLINE_MS = 20_000;

let dir: string;
let fifo: string;

beforeAll(async () => {
  dir = await tempDir("zoneform-attack-files-");
  fifo = join(dir, "zoneform.yaml");
  execFileSync("mkfifo", [fifo]);
});

describe("a configuration or plan that is not a regular file", () => {
  it(
    "refuses -c on a FIFO at once with exit 3, saying it is a FIFO and not a regular file, and calls no API",
    async () => {
      const r = await runBuilt(["plan", "-c", fifo, "--api-url", emu.url], { deadlineMs: DEADLINE_MS });
      expect(r.killed, "the run hung on the FIFO and was killed").toBe(false);
      expectFailure(r, 3);
      expect(r.stderr).toBe(`Error: ${fifo}: is a FIFO (named pipe), not a regular file: give the path of a file\n`);
      expect(await emu.calls()).toEqual([]);
    },
    DEADLINE_MS + 10_000,
  );

  it(
    "refuses `validate -c` on a FIFO the same way",
    async () => {
      const r = await runBuilt(["validate", "-c", fifo], { deadlineMs: DEADLINE_MS });
      expect(r.killed).toBe(false);
      expectFailure(r, 3);
      expect(r.stderr).toContain(`${fifo}: is a FIFO (named pipe), not a regular file`);
    },
    DEADLINE_MS + 10_000,
  );

  it(
    "refuses a *.yaml symlink to a FIFO inside a -c directory",
    async () => {
      const d = join(dir, "confdir");
      await mkdir(d);
      await symlink(fifo, join(d, "zones.yaml"));
      const r = await runBuilt(["plan", "-c", d, "--api-url", emu.url], { deadlineMs: DEADLINE_MS });
      expect(r.killed).toBe(false);
      expectFailure(r, 3);
      expect(r.stderr).toBe(
        `Error: ${join(d, "zones.yaml")}: is a FIFO (named pipe), not a regular file: give the path of a file\n`,
      );
      expect(await emu.calls()).toEqual([]);
    },
    DEADLINE_MS + 10_000,
  );

  it(
    "refuses -c /dev/zero at once with exit 3, saying it is a device, without reading it",
    async () => {
      const r = await runBuilt(["plan", "-c", "/dev/zero", "--api-url", emu.url], { deadlineMs: DEADLINE_MS });
      expect(r.killed, "the run kept reading /dev/zero and was killed").toBe(false);
      expectFailure(r, 3);
      expect(r.stderr).toBe("Error: /dev/zero: is a device, not a regular file: give the path of a file\n");
      expect(await emu.calls()).toEqual([]);
    },
    DEADLINE_MS + 10_000,
  );

  it(
    "refuses `apply` of a plan file that is a FIFO at once with exit 3 and writes nothing",
    async () => {
      const planFifo = join(dir, "plan.json");
      execFileSync("mkfifo", [planFifo]);
      const r = await runBuilt(["apply", planFifo, "--auto-approve", "--api-url", emu.url], {
        deadlineMs: DEADLINE_MS,
      });
      expect(r.killed, "the run hung on the FIFO and was killed").toBe(false);
      expectFailure(r, 3);
      expect(r.stderr).toBe(
        `Error: the plan file ${planFifo} is a FIFO (named pipe), not a regular file: give the path of a file\n`,
      );
      expect(await emu.calls()).toEqual([]);
    },
    DEADLINE_MS + 10_000,
  );

  it(
    "refuses `apply` of /dev/zero as a plan file at once with exit 3",
    async () => {
      const r = await runBuilt(["apply", "/dev/zero", "--auto-approve", "--api-url", emu.url], {
        deadlineMs: DEADLINE_MS,
      });
      expect(r.killed).toBe(false);
      expectFailure(r, 3);
      expect(r.stderr).toBe(
        "Error: the plan file /dev/zero is a device, not a regular file: give the path of a file\n",
      );
      expect(await emu.calls()).toEqual([]);
    },
    DEADLINE_MS + 10_000,
  );
});
