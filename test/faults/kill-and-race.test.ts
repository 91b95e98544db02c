// Issue 10.3: an apply killed (SIGKILL, the built CLI in a child process) at points spread over its
// run, then run again, converges; after two applies of the same file at once, one more converges or
// stops the zones where both created an object, naming the twins, and writes nothing there.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TOKEN, TestEmulator, runCli, tempDir } from "../helpers/cli.js";
import { applyUntilDone, createFleet, expectConverged, slowWrites, untilAnswered } from "../helpers/fleet.js";

const CLI = fileURLToPath(new URL("../../dist/cli/zoneform.js", import.meta.url));
const ZONES = 10;

const emu = TestEmulator.perFile();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes the emulator has logged so far (not Cloudflare's checks, `?dry_run=true`, which write nothing). */
async function writesSoFar(): Promise<number> {
  return (await emu.requests()).filter((r) => r.method !== "GET" && r.query.dry_run !== "true").length;
}

describe("apply killed part-way", () => {
  it.skipIf(!existsSync(CLI))(
    "converges when run again after a SIGKILL at any of several points",
    async () => {
      // Kill points, as numbers of writes the emulator has seen: at the first, early, in the middle, late.
      for (const killAfter of [1, 9, 30, 70]) {
        await emu.reset();
        const fleet = await createFleet(emu, ZONES);
        await slowWrites(emu, 15);
        await emu.clearRequests();
        const child = spawn(
          process.execPath,
          [CLI, "apply", "-c", fleet.config, "--auto-approve", "--api-url", emu.url],
          {
            env: { PATH: process.env.PATH, CLOUDFLARE_API_TOKEN: TOKEN, ...fleet.env },
            stdio: "ignore",
          },
        );
        const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
        let killed = false;
        for (;;) {
          if (child.exitCode !== null) break;
          if ((await writesSoFar()) >= killAfter) {
            killed = child.kill("SIGKILL");
            break;
          }
          // Each look reads the whole request log: often enough to kill at the point, no more.
          await sleep(15);
        }
        await exited;
        expect(killed, `the apply finished before ${killAfter} writes`).toBe(true);
        // Calls in flight when the process died are still answered by the server: let them land. The
        // slow writes only served to make the killed run long enough to be killed part-way.
        await emu.admin("DELETE", "/faults");
        await untilAnswered(emu);
        const runs = await applyUntilDone(emu, fleet, [], 2);
        expect(runs.at(-1)!.code, runs.at(-1)!.stderr).toBe(0);
        await expectConverged(emu, fleet);
      }
    },
    90_000,
  );
});

describe("two applies at once", () => {
  it("from one machine: the second is refused by the lock, and nothing is duplicated", async () => {
    const fleet = await createFleet(emu, ZONES);
    await emu.clearRequests();
    const both = await Promise.all(
      [0, 1].map(() => runCli(emu, ["apply", "-c", fleet.config, "--auto-approve"], { env: fleet.env })),
    );
    for (const r of both) expect(r.stderr).not.toMatch(/Internal error|\n\s+at /);
    expect(both.map((r) => r.code).sort()).toEqual([0, 1]);
    expect(both.find((r) => r.code === 1)!.stderr).toMatch(
      /is being applied by another zoneform \(pid \d+ on .*\); nothing was written/,
    );
    const creates = (await emu.calls({ writesOnly: true })).filter((c) => /^POST .*page_shield\/policies$/.test(c));
    expect(creates.length).toBe(2 * ZONES);
    await expectConverged(emu, fleet);
  }, 60_000);

  it("from two machines (no shared lock): the next run converges, or stops each zone that now holds twins, " +
    "naming them and writing nothing", async () => {
    const fleet = await createFleet(emu, ZONES);
    const dirs = await Promise.all([0, 1].map(() => tempDir("zoneform-machine-")));
    const both = await Promise.all(
      dirs.map((d) =>
        runCli(emu, ["apply", "-c", fleet.config, "--auto-approve"], { env: { ...fleet.env, ZONEFORM_LOCK_DIR: d } }),
      ),
    );
    for (const r of both) {
      expect([0, 1, 4], r.stderr).toContain(r.code);
      expect(r.stderr).not.toMatch(/Internal error|\n\s+at /);
    }
    // Both may have created a policy or a job of one description or name: zoneform never guesses
    // which of two twins the file means, so such a zone stops, naming both, and nothing is written.
    await emu.clearRequests();
    const next = await runCli(emu, ["apply", "-c", fleet.config, "--auto-approve"], { env: fleet.env });
    if (next.code === 0) {
      await expectConverged(emu, fleet);
      return;
    }
    expect(next.code, next.stderr).toBe(1);
    expect(next.stderr).toMatch(
      /matches 2 live (Page Shield policies|Logpush jobs): id \S+ .*; id \S+ .*zoneform does not guess/,
    );
    expect(next.stderr).toContain("pin the one the file means with `id: <id>`");
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  }, 60_000);
});
