// Issue 16.3: Ctrl+C during apply works like Terraform's. The first interrupt starts nothing new and
// lets the calls in flight finish, then prints the exit-4 report of what was done, failed and not
// attempted; a second one stops at once, naming what was in flight. The built CLI runs in a child
// process against the emulator (with latency or slow writes, so an apply takes a while), interrupted at
// several points.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TOKEN, TestEmulator, runCli } from "../helpers/cli.js";
import { applyUntilDone, createFleet, expectConverged, slowWrites, untilAnswered } from "../helpers/fleet.js";

const CLI = fileURLToPath(new URL("../../dist/cli/zoneform.js", import.meta.url));
const emu = TestEmulator.perFile();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Changing writes so far (the Logpush destination checks are POSTs that only validate). */
async function writesSoFar(): Promise<number> {
  return (await emu.requests()).filter((r) => r.method !== "GET" && !/logpush\/(validate|ownership\/validate)/.test(r.path)).length;
}

/** Runs apply in a child, sends SIGINT `times` times once `after` writes were seen; resolves with its output. */
async function interrupted(config: string, env: NodeJS.ProcessEnv, after: number, times: 1 | 2) {
  const child = spawn(process.execPath, [CLI, "apply", "-c", config, "--auto-approve", "--api-url", emu.url], {
    env: { PATH: process.env.PATH, CLOUDFLARE_API_TOKEN: TOKEN, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += String(d)));
  child.stderr.on("data", (d) => (stderr += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // With `after` 0: once it has sent its first read, so its handler is in place (a fixed sleep is not
  // enough on a loaded machine, where node may still be starting), and rounds of reads before any write.
  if (after === 0) for (let i = 0; i < 2000 && (await emu.requests()).length === 0; i++) await sleep(5);
  for (let i = 0; i < 2000 && (await writesSoFar()) < after; i++) await sleep(5);
  child.kill("SIGINT");
  if (times === 2) {
    await sleep(20);
    child.kill("SIGINT");
  }
  const code = await exited;
  return { code, stdout, stderr };
}

describe.skipIf(!existsSync(CLI))("Ctrl+C during apply", () => {
  for (const after of [1, 12]) {
    it(`the first interrupt (after ${after} write(s)) finishes what is in flight, starts nothing new and reports; a new apply converges`, async () => {
      const fleet = await createFleet(emu, 4, `int${after}`);
      await slowWrites(emu, 60);
      await emu.clearRequests();
      const r = await interrupted(fleet.config, fleet.env, after, 1);
      expect(r.stderr).not.toMatch(/Internal error|\n\s+at /);
      expect(r.stderr).toContain("Interrupt received: starting nothing new; letting the");
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toMatch(/apply interrupted: \d+ change\(s\) made, 0 failed, \d+ not attempted/);
      expect(r.stderr).toMatch(/\n {2}not done: {4}int\d+-\d\.example: /);
      // Every write it started was answered (none cut off): the log has no write without an answer.
      const writes = (await emu.requests()).filter((q) => q.method !== "GET");
      expect(writes.every((w) => w.status > 0)).toBe(true);
      await emu.admin("DELETE", "/faults");
      await untilAnswered(emu);
      const runs = await applyUntilDone(emu, fleet, [], 1);
      expect(runs[0]!.code, runs[0]!.stderr).toBe(0);
      await expectConverged(emu, fleet);
    }, 60_000);
  }

  it("an interrupt before the first write stops at once: exit 130, nothing written", async () => {
    await emu.admin("PUT", "/latency", { ms: 200 });
    const fleet = await createFleet(emu, 2, "early");
    await emu.clearRequests();
    const r = await interrupted(fleet.config, fleet.env, 0, 1);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("Interrupted before any change was made; nothing was written.");
    expect(await writesSoFar()).toBe(0);
  }, 30_000);

  it("a second interrupt stops at once, exit 130, naming what was in flight; a new apply converges", async () => {
    const fleet = await createFleet(emu, 4, "twice");
    // Slow writes (reads at full speed): the two interrupts come while the first write is in flight.
    await slowWrites(emu, 300);
    await emu.clearRequests();
    const r = await interrupted(fleet.config, fleet.env, 1, 2);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("Stopped at once.");
    expect(r.stderr).toMatch(/These changes were in flight and may have landed: twice-\d\.example: |Run `zoneform plan` to see the live state/);
    expect(r.stderr).not.toMatch(/Internal error|\n\s+at /);
    await emu.admin("DELETE", "/faults");
    await untilAnswered(emu);
    const again = await runCli(emu, ["apply", "-c", fleet.config, "--auto-approve"], { env: fleet.env });
    expect(again.code, again.stderr).toBe(0);
    await expectConverged(emu, fleet);
  }, 60_000);
});
