// Reading a file the user names.
import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";

export type ReadProblem =
  | { kind: "missing" }
  | { kind: "not-regular"; what: string }
  | { kind: "too-large"; bytes: number }
  | { kind: "unreadable"; code: string };

export class FileReadError extends Error {
  constructor(readonly problem: ReadProblem) {
    super(describeReadProblem(problem, Number.POSITIVE_INFINITY));
  }
}

export function describeReadProblem(p: ReadProblem, maxBytes: number): string {
  switch (p.kind) {
    case "missing":
      return "no such file or directory";
    case "not-regular":
      return `is ${p.what}, not a regular file: give the path of a file`;
    case "too-large":
      return `is ${formatBytes(p.bytes)}, over the ${formatLimit(maxBytes)} it may have`;
    case "unreadable":
      return `cannot be read (${p.code})`;
  }
}

/** A limit as people write it: `10 MiB`. */
function formatLimit(n: number): string {
  const mib = n / 1024 / 1024;
  return Number.isInteger(mib) ? `${mib} MiB` : formatBytes(n);
}

export function formatBytes(n: number): string {
  return n >= 1024 * 1024
    ? `${(n / 1024 / 1024).toFixed(1)} MiB`
    : n >= 1024
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${n} bytes`;
}

export function kindOf(stats: {
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
}): string {
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSocket()) return "a socket";
  if (stats.isDirectory()) return "a directory";
  return "not a regular file";
}

export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer> {
  let before;
  try {
    before = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new FileReadError(code === "ENOENT" ? { kind: "missing" } : { kind: "unreadable", code });
  }
  if (!before.isFile()) throw new FileReadError({ kind: "not-regular", what: kindOf(before) });
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new FileReadError(code === "ENOENT" ? { kind: "missing" } : { kind: "unreadable", code });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new FileReadError({ kind: "not-regular", what: kindOf(stats) });
    if (stats.size > maxBytes) throw new FileReadError({ kind: "too-large", bytes: stats.size });
    // Sized for the file as stat saw it, grown if it grows while read: never the whole limit up front.
    let buffer = Buffer.allocUnsafe(Math.min(stats.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw new FileReadError({ kind: "too-large", bytes: length });
    }
    return buffer.subarray(0, length);
  } catch (err) {
    if (err instanceof FileReadError) throw err;
    throw new FileReadError({ kind: "unreadable", code: (err as NodeJS.ErrnoException).code ?? String(err) });
  } finally {
    await handle.close();
  }
}
