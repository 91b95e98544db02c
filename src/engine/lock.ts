// One apply at a time per zone and API on this machine. Spec: docs/commands/apply.md.
// Every step is atomic: a lock is written to its own file, then linked into place; a stale lock is replaced
// by rename, only by the holder of the claim its text names; a release removes only this process's own text.
import { createHash, randomBytes } from "node:crypto";
import { access, link, mkdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { constants, readFileSync, unlinkSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { RuntimeError, UsageError } from "../errors.js";
import { FileReadError, kindOf, readRegularFile } from "../read-file.js";
import type { Env } from "../model/index.js";

interface Holder {
  pid: number;
  host: string;
  command: string;
  started_at: string;
  nonce?: string;
}

function lockDir(env: Env): string {
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

interface Found {
  text: string;
  holder?: Holder;
}

async function readLock(path: string): Promise<Found | "gone" | "unreadable"> {
  let text: string;
  try {
    text = (await readRegularFile(path, 64 * 1024)).toString("utf8");
  } catch (err) {
    return err instanceof FileReadError && err.problem.kind === "missing" ? "gone" : "unreadable";
  }
  try {
    const h = JSON.parse(text) as Holder;
    const ok = h !== null && typeof h === "object" && Number.isSafeInteger(h.pid) && typeof h.host === "string";
    return ok ? { text, holder: h } : { text };
  } catch {
    return { text };
  }
}

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

function cannotTake(path: string, err: unknown): RuntimeError {
  const code = (err as NodeJS.ErrnoException).code ?? String(err);
  return new RuntimeError(
    `cannot take the apply lock ${path} (${code}); set ZONEFORM_LOCK_DIR to a directory zoneform may write to`,
  );
}

async function viaFileOfItsOwn<T>(path: string, text: string, put: (own: string) => Promise<T>): Promise<T> {
  const own = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(own, text, { flag: "wx", mode: 0o600 });
    return await put(own);
  } finally {
    await unlink(own).catch(() => undefined);
  }
}

function create(path: string, text: string): Promise<boolean> {
  return viaFileOfItsOwn(path, text, async (own) => {
    try {
      await link(own, path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw cannotTake(path, err);
    }
  }).catch((err: unknown) => {
    throw err instanceof RuntimeError ? err : cannotTake(path, err);
  });
}

function replace(path: string, text: string): Promise<void> {
  return viaFileOfItsOwn(path, text, (own) => rename(own, path)).catch((err: unknown) => {
    throw cannotTake(path, err);
  });
}

/** How many claims deep a takeover goes: the lock, and the claim on it. */
const MAX_CLAIM_DEPTH = 2;
const MAX_ATTEMPTS = 20;

type Taken = { held: true } | { held: false; other?: Holder };

async function acquire(path: string, text: string, me: Holder, depth = 0): Promise<Taken> {
  let other: Holder | undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await create(path, text)) return { held: true };
    const found = await readLock(path);
    // Released in between: try to create it again.
    if (found === "gone") continue;
    if (found === "unreadable" || !found.holder) return { held: false };
    other = found.holder;
    if (other.host !== me.host || alive(other.pid) || depth >= MAX_CLAIM_DEPTH) return { held: false, other };
    // Left by a process that is gone: only the holder of the claim named by this very text replaces it.
    const claim = `${path}.${createHash("sha256").update(found.text).digest("hex").slice(0, 16)}.takeover`;
    const claimed = await acquire(claim, text, me, depth + 1);
    if (!claimed.held) {
      // Another live process is taking it over: look again in a moment (it holds the lock then, or gave up).
      if (claimed.other && claimed.other.host === me.host && alive(claimed.other.pid)) {
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 20)));
        continue;
      }
      return { held: false, other };
    }
    try {
      const now = await readLock(path);
      // Still the stale lock (nobody else may replace it while the claim is held): replace it.
      if (now !== "gone" && now !== "unreadable" && now.text === found.text) {
        await replace(path, text);
        return { held: true };
      }
    } finally {
      await unlink(claim).catch(() => undefined);
    }
  }
  return { held: false, other };
}

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
    nonce: randomBytes(8).toString("hex"),
  };
  const text = JSON.stringify(me);
  const held: string[] = [];
  const mine = (p: string): boolean => {
    try {
      return readFileSync(p, "utf8") === text;
    } catch {
      return false;
    }
  };
  const releaseSync = () => {
    for (const p of held) {
      try {
        if (mine(p)) unlinkSync(p);
      } catch {}
    }
  };
  process.once("exit", releaseSync);
  const release = async () => {
    process.removeListener("exit", releaseSync);
    await Promise.all(
      held.splice(0).map(async (p) => {
        const found = await readLock(p);
        if (found !== "gone" && found !== "unreadable" && found.text === text) await unlink(p).catch(() => undefined);
      }),
    );
  };
  try {
    for (const zone of [...new Set(zoneIds)].sort()) {
      // Per API as well: the same zone id on another API (a local emulator) is another zone.
      const path = join(dir, `${zone}-${createHash("sha256").update(opts.api).digest("hex").slice(0, 12)}.lock`);
      const taken = await acquire(path, text, me);
      if (taken.held) {
        held.push(path);
        continue;
      }
      const other = taken.other;
      const who = other
        ? `pid ${other.pid} on ${other.host}, \`${other.command}\`, since ${other.started_at}`
        : "a process whose lock file cannot be read";
      const what = zone.startsWith("account-") ? `account ${zone.slice("account-".length)}` : `zone ${zone}`;
      throw new RuntimeError(
        `${what} is being applied by another zoneform (${who}); nothing was written. ` +
          `Wait for it to finish, or remove ${path} if that process is gone.`,
      );
    }
  } catch (err) {
    await release();
    throw err;
  }
  return release;
}
