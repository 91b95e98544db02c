// One apply at a time per zone (and API) on this machine: before it reads and writes, apply takes a
// lock file per zone (in the system's temporary directory, or ZONEFORM_LOCK_DIR), created exclusively and
// holding who took it. A second apply on any of the same zones is refused with what holds the lock.
// A lock left by a process that is gone is taken over. Across machines, creates check first that
// their identity did not appear meanwhile (engine/execute.ts).
import { createHash } from "node:crypto";
import { access, mkdir, open, stat, unlink } from "node:fs/promises";
import { constants, unlinkSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { RuntimeError, UsageError } from "../errors.js";
import { kindOf, readRegularFile } from "../read-file.js";
import type { Env } from "../model/env.js";

interface Holder {
  pid: number;
  host: string;
  command: string;
  started_at: string;
}

export function lockDir(env: Env): string {
  return env.ZONEFORM_LOCK_DIR || join(tmpdir(), "zoneform-locks");
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Who holds a lock, from its file: read only when it is a small regular file (a FIFO there must not block). */
async function readHolder(path: string): Promise<Holder | undefined> {
  try {
    return JSON.parse((await readRegularFile(path, 64 * 1024)).toString("utf8")) as Holder;
  } catch {
    return undefined;
  }
}

/**
 * Makes sure the lock directory is a directory (creating it when missing), before any lock is taken:
 * a file, a FIFO, a directory that cannot be created or written is a one-line error naming the path, exit 3
 * when ZONEFORM_LOCK_DIR names it (fix the variable), else exit 1.
 */
async function ensureLockDir(dir: string, fromEnv: boolean): Promise<void> {
  const fail = (what: string): never => {
    const message = `the apply lock directory ${dir} ${what}`;
    throw fromEnv
      ? new UsageError(`${message}: set ZONEFORM_LOCK_DIR to a directory zoneform may write to`)
      : new RuntimeError(`${message}; set ZONEFORM_LOCK_DIR to a directory zoneform may write to`);
  };
  let info;
  try {
    info = await stat(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") return fail(`cannot be used (${code ?? String(err)})`);
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      return;
    } catch (mkdirErr) {
      return fail(`cannot be created (${(mkdirErr as NodeJS.ErrnoException).code ?? String(mkdirErr)})`);
    }
  }
  if (!info.isDirectory()) fail(`is ${info.isFile() ? "a file" : kindOf(info)}, not a directory`);
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    fail(`cannot be written (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

async function take(path: string, holder: Holder): Promise<boolean> {
  try {
    const handle = await open(path, "wx", 0o600);
    await handle.writeFile(JSON.stringify(holder));
    await handle.close();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new RuntimeError(
      `cannot take the apply lock ${path} (${code}); set ZONEFORM_LOCK_DIR to a directory zoneform may write to`,
    );
  }
}

/** Takes the lock of every zone (in a fixed order), or none; resolves to the release function. */
export async function lockZones(
  zoneIds: string[],
  opts: { env: Env; command: string; api: string },
): Promise<() => Promise<void>> {
  const dir = lockDir(opts.env);
  await ensureLockDir(dir, Boolean(opts.env.ZONEFORM_LOCK_DIR));
  const me: Holder = {
    pid: process.pid,
    host: hostname(),
    command: opts.command,
    started_at: new Date().toISOString(),
  };
  const held: string[] = [];
  const releaseSync = () => {
    for (const p of held) {
      try {
        unlinkSync(p);
      } catch {
        // Already gone.
      }
    }
  };
  process.once("exit", releaseSync);
  const release = async () => {
    process.removeListener("exit", releaseSync);
    await Promise.all(held.splice(0).map((p) => unlink(p).catch(() => undefined)));
  };
  try {
    for (const zone of [...new Set(zoneIds)].sort()) {
      // Per API as well: the same zone id on another API (a local emulator) is another zone.
      const path = join(dir, `${zone}-${createHash("sha256").update(opts.api).digest("hex").slice(0, 12)}.lock`);
      if (await take(path, me)) {
        held.push(path);
        continue;
      }
      const other = await readHolder(path);
      if (other && other.host === me.host && !alive(other.pid)) {
        // Left by a process that is gone: take it over.
        await unlink(path).catch(() => undefined);
        if (await take(path, me)) {
          held.push(path);
          continue;
        }
      }
      const who = other
        ? `pid ${other.pid} on ${other.host}, \`${other.command}\`, since ${other.started_at}`
        : "a process whose lock file cannot be read";
      throw new RuntimeError(
        `zone ${zone} is being applied by another zoneform (${who}); nothing was written. ` +
          `Wait for it to finish, or remove ${path} if that process is gone.`,
      );
    }
  } catch (err) {
    await release();
    throw err;
  }
  return release;
}
