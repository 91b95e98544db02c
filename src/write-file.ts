// Writing a file the user names (`plan --out`, `export --out`, `waf-migration config --write`): never over an
// existing file unless --force, and never half a file.
import { constants, lstatSync } from "node:fs";
import { copyFile, link, rename, rm, writeFile } from "node:fs/promises";
import { RuntimeError, UsageError } from "./errors.js";

export interface WriteOptions {
  /** Replace an existing file. */
  force?: boolean;
  /** Mode of a new file (before the umask); default 0o666. */
  mode?: number;
  /** How the command line named the file, for messages: `--out plan.json`. */
  label?: string;
}

function existsError(label: string): UsageError {
  return new UsageError(`${label}: the file exists; pass --force to overwrite it`);
}

export function refuseExisting(path: string, opts: WriteOptions = {}): void {
  if (opts.force) return;
  try {
    lstatSync(path);
  } catch {
    return;
  }
  throw existsError(opts.label ?? path);
}

/** Filesystems without hard links: the target is created exclusively instead (still never clobbered). */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]);

/** Writes `data` to `path` through a temporary file; an existing target needs `force`. */
export async function writeFileSafely(path: string, data: string, opts: WriteOptions = {}): Promise<void> {
  const label = opts.label ?? path;
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temp, data, { mode: opts.mode ?? 0o666, flag: "wx" });
    if (opts.force) {
      await rename(temp, path);
    } else {
      try {
        await link(temp, path);
      } catch (err) {
        if (!NO_LINKS.has((err as NodeJS.ErrnoException).code ?? "")) throw err;
        await copyFile(temp, path, constants.COPYFILE_EXCL);
      }
      await rm(temp, { force: true });
    }
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    if ((err as NodeJS.ErrnoException).code === "EEXIST" && !opts.force) throw existsError(label);
    throw new RuntimeError(`${label}: cannot write the file: ${(err as Error).message}`);
  }
}
