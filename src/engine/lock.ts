// One apply at a time per zone (and API) on this machine: before it reads and writes, apply takes a
// lock file per zone (in the system's temporary directory, or ZONEFORM_LOCK_DIR), created exclusively and
// holding who took it. A second apply on any of the same zones is refused with what holds the lock.
// A lock left by a process that is gone is taken over. Across machines, creates check first that
// their identity did not appear meanwhile (engine/apply.ts).
import { createHash } from "node:crypto";
import { mkdir, open, readFile, unlink } from "node:fs/promises";
import { unlinkSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { RuntimeError } from "../errors.js";
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

async function readHolder(path: string): Promise<Holder | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as Holder;
  } catch {
    return undefined;
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
    throw new RuntimeError(`cannot take the apply lock ${path}: ${(err as Error).message}`);
  }
}

/** Takes the lock of every zone (in a fixed order), or none; resolves to the release function. */
export async function lockZones(zoneIds: string[], opts: { env: Env; command: string; api: string }): Promise<() => Promise<void>> {
  const dir = lockDir(opts.env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const me: Holder = { pid: process.pid, host: hostname(), command: opts.command, started_at: new Date().toISOString() };
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
      const who = other ? `pid ${other.pid} on ${other.host}, \`${other.command}\`, since ${other.started_at}` : "a process whose lock file cannot be read";
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
