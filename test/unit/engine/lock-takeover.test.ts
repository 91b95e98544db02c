// Issue 34: the takeover of a lock left by a process that is gone is atomic. Several processes started
// together find the same stale lock of one zone at the same instant; exactly one of them may hold it,
// every other is refused naming the one that does. Run against the built engine (dist/engine/lock.js,
// which vitest's global set-up keeps current) in real child processes, in rounds, each round with its
// own lock directory and stale lock, bounded in count and time.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lockZones } from "../../../src/engine/lock.js";
import { tempDir } from "../../helpers/cli.js";

const LOCK_MODULE = fileURLToPath(new URL("../../../dist/engine/lock.js", import.meta.url));
const ZONE = "5ababd603b22780302dd8d83498e5172";
const API = "http://127.0.0.1:1/client/v4";
const LOCK_NAME = `${ZONE}-${createHash("sha256").update(API).digest("hex").slice(0, 12)}.lock`;
const CONTENDERS = 8;
const ROUNDS = 6;
/** Time between rounds: each winner holds its lock 250 ms, every contender is done well within it. */
const ROUND_MS = 900;

/** A child: for each round, waits for its instant (busy at the end, to start together), tries the lock, reports. */
const WORKER = `
import { lockZones } from ${JSON.stringify(`file://${LOCK_MODULE}`)};
const [dirs, starts] = [JSON.parse(process.argv[2]), JSON.parse(process.argv[3])];
for (let r = 0; r < dirs.length; r++) {
  // Asleep until just before the instant, then busy for the last few ms: together, without 8 spinning cores.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, starts[r] - Date.now() - 25)));
  while (Date.now() < starts[r]) {}
  let line;
  try {
    const release = await lockZones([${JSON.stringify(ZONE)}], {
      env: { ZONEFORM_LOCK_DIR: dirs[r] },
      command: "apply " + process.pid,
      api: ${JSON.stringify(API)},
    });
    const from = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 250));
    line = { round: r, held: true, from, to: Date.now() };
    await release();
  } catch (err) {
    line = { round: r, held: false, message: err.message };
  }
  process.stdout.write(JSON.stringify(line) + "\\n");
}
`;

/** A pid no process has: one that just exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

function staleLock(pid: number): string {
  return JSON.stringify({ pid, host: hostname(), command: "apply", started_at: "2025-06-01T12:00:00.000Z" });
}

function runWorker(script: string, dirs: string[], starts: number[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, JSON.stringify(dirs), JSON.stringify(starts)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`a contender exited ${code}: ${err}`));
    });
  });
}

describe("the takeover of a stale lock", () => {
  it(`${CONTENDERS} processes at once, ${ROUNDS} rounds: one holds the zone at a time; the others are refused ` +
    "naming the holder; no file is left", async () => {
    const root = await tempDir("zoneform-lock-race-");
    const script = join(root, "contender.mjs");
    await writeFile(script, WORKER);
    const dirs: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const dir = join(root, `round-${r}`);
      await mkdir(dir);
      await writeFile(join(dir, LOCK_NAME), staleLock(deadPid()));
      dirs.push(dir);
    }
    // Far enough ahead for every child to have started and loaded the module.
    const first = Date.now() + 1500;
    const starts = dirs.map((_, r) => first + r * ROUND_MS);
    const outputs = await Promise.all(Array.from({ length: CONTENDERS }, () => runWorker(script, dirs, starts)));
    const lines = outputs
      .flatMap((o) => o.trim().split("\n"))
      .map((l) => JSON.parse(l) as { round: number; held: boolean; message?: string; from?: number; to?: number });
    expect(lines).toHaveLength(CONTENDERS * ROUNDS);
    for (let r = 0; r < ROUNDS; r++) {
      const round = lines.filter((l) => l.round === r);
      // One holder at a time: a contender that came late (the machine is busy) may take the lock after
      // the winner released it, never while it held it.
      const holders = round.filter((l) => l.held).sort((a, b) => a.from! - b.from!);
      expect(holders.length, `round ${r}: ${JSON.stringify(round)}`).toBeGreaterThanOrEqual(1);
      for (let i = 1; i < holders.length; i++)
        expect(holders[i]!.from!, `round ${r}: ${JSON.stringify(round)}`).toBeGreaterThanOrEqual(holders[i - 1]!.to!);
      // Most contenders met the winner: the round did contend.
      expect(round.filter((l) => !l.held).length).toBeGreaterThanOrEqual(CONTENDERS / 2);
      for (const refused of round.filter((l) => !l.held))
        expect(refused.message).toMatch(
          new RegExp(`^zone ${ZONE} is being applied by another zoneform \\(pid \\d+ on .*, \`apply \\d+\``),
        );
      // Released by its winner; no claim or temporary file left behind.
      expect(await readdir(dirs[r]!)).toEqual([]);
    }
  }, 60_000);
});

describe("a lock", () => {
  it("is created whole: a second taker in this process is refused; release removes only its own lock", async () => {
    const dir = await tempDir("zoneform-lock-");
    const opts = { env: { ZONEFORM_LOCK_DIR: dir }, command: "apply", api: API };
    const release = await lockZones([ZONE], opts);
    const text = await readFile(join(dir, LOCK_NAME), "utf8");
    expect(JSON.parse(text)).toMatchObject({ pid: process.pid, host: hostname(), command: "apply" });
    await expect(lockZones([ZONE], opts)).rejects.toThrow(`zone ${ZONE} is being applied by another zoneform`);
    await release();
    expect(await readdir(dir)).toEqual([]);
    // A lock file that is no longer this process's own (put there by hand meanwhile) is left in place.
    const again = await lockZones([ZONE], opts);
    await writeFile(join(dir, LOCK_NAME), staleLock(process.ppid));
    await again();
    expect(await readdir(dir)).toEqual([LOCK_NAME]);
  });

  it("left by a process that is gone is taken over; one held by a live process is not", async () => {
    const dir = await tempDir("zoneform-lock-");
    const opts = { env: { ZONEFORM_LOCK_DIR: dir }, command: "apply", api: API };
    await writeFile(join(dir, LOCK_NAME), staleLock(deadPid()));
    const release = await lockZones([ZONE], opts);
    expect(JSON.parse(await readFile(join(dir, LOCK_NAME), "utf8"))).toMatchObject({ pid: process.pid });
    await release();
    await writeFile(join(dir, LOCK_NAME), staleLock(process.ppid));
    await expect(lockZones([ZONE], opts)).rejects.toThrow(`(pid ${process.ppid} on ${hostname()}, \`apply\``);
  });

  it("a claim left by a contender that died during its takeover is taken over too", async () => {
    const dir = await tempDir("zoneform-lock-");
    const stale = staleLock(deadPid());
    await writeFile(join(dir, LOCK_NAME), stale);
    const claim = `${LOCK_NAME}.${createHash("sha256").update(stale).digest("hex").slice(0, 16)}.takeover`;
    await writeFile(join(dir, claim), staleLock(deadPid()));
    const release = await lockZones([ZONE], { env: { ZONEFORM_LOCK_DIR: dir }, command: "apply", api: API });
    expect(JSON.parse(await readFile(join(dir, LOCK_NAME), "utf8"))).toMatchObject({ pid: process.pid });
    await release();
    expect(await readdir(dir)).toEqual([]);
  });
});
