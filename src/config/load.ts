// Finds and reads the files of a configuration: one file, or every *.yaml / *.yml of a directory (sorted, not
// recursive).
import { createHash } from "node:crypto";
import { readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../errors.js";
import { DEFAULT_CONFIG_PATH } from "../model/index.js";
import { describeReadProblem, FileReadError, kindOf, readRegularFile } from "../read-file.js";

export const MAX_CONFIG_FILE_BYTES = 10 * 1024 * 1024;

export interface SourceFile {
  /** As shown in messages: relative to cwd when inside it. */
  file: string;
  text: string;
  sha256?: string;
}

export function displayPath(absolute: string, cwd: string): string {
  const rel = path.relative(cwd, absolute);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : absolute;
}

function pathError(shown: string, message: string): ConfigError {
  return new ConfigError([{ file: shown, line: 0, column: 0, pointer: "", message }], `${shown}: ${message}`);
}

export async function readConfigFiles(configPath: string, cwd: string): Promise<SourceFile[]> {
  const absolute = path.resolve(cwd, configPath);
  const shown = displayPath(absolute, cwd);
  let info;
  try {
    info = await stat(absolute);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const hint =
      code === "ENOENT" || code === "ENOTDIR"
        ? configPath === DEFAULT_CONFIG_PATH
          ? "no configuration found: create zoneform.yaml (see examples/minimal.yaml) or pass -c PATH (a " +
            "file or a directory of *.yaml)"
          : "no such file or directory"
        : `cannot be read (${code ?? String(err)})`;
    throw pathError(shown, hint);
  }
  const paths = info.isDirectory() ? await configDirFiles(absolute, cwd) : [absolute];
  const files: SourceFile[] = [];
  for (const p of paths) {
    const shownFile = displayPath(p, cwd);
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(p, MAX_CONFIG_FILE_BYTES);
    } catch (err) {
      if (!(err instanceof FileReadError)) throw err;
      const hint =
        err.problem.kind === "too-large" ? ": split the zones over several files in a directory (-c DIR)" : "";
      throw pathError(shownFile, `${describeReadProblem(err.problem, MAX_CONFIG_FILE_BYTES)}${hint}`);
    }
    // After the read, which refuses what is not a regular file (a FIFO, a device) by what it is.
    await refuseOutsideLink(p, info.isDirectory() ? absolute : path.dirname(absolute), shownFile);
    files.push({
      file: shownFile,
      text: refuseNul(decodeUtf8(bytes, shownFile), shownFile),
      sha256: createHash("sha256").update(bytes).digest("hex"),
    });
  }
  return files;
}

async function refuseOutsideLink(file: string, dir: string, shown: string): Promise<void> {
  let real: string;
  let base: string;
  try {
    [real, base] = await Promise.all([realpath(file), realpath(dir)]);
  } catch {
    return;
  }
  const rel = path.relative(base, real);
  if (rel.startsWith("..") || path.isAbsolute(rel))
    throw pathError(
      shown,
      "is a link to a file outside the configuration's directory, which zoneform does not read (copy the file " +
        "into the directory instead)",
    );
}

/** The *.yaml / *.yml files of a configuration directory, sorted. */
async function configDirFiles(dir: string, cwd: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw pathError(
      displayPath(dir, cwd),
      `the directory cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  const paths: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const yaml = /\.ya?ml$/i.test(e.name);
    const special = e.isFIFO() || e.isCharacterDevice() || e.isBlockDevice() || e.isSocket();
    const shownEntry = (): string => displayPath(path.join(dir, e.name), cwd);
    if (special) {
      throw pathError(
        shownEntry(),
        `is ${kindOf(e)}: a configuration directory may hold no FIFO, device or socket (move it out, or ` +
          `give -c a directory without it)`,
      );
    }
    if (yaml && e.isDirectory())
      throw pathError(
        shownEntry(),
        "is a directory: every *.yaml or *.yml entry of a configuration directory is read as a file (rename it)",
      );
    if (yaml && (e.isFile() || e.isSymbolicLink())) paths.push(path.join(dir, e.name));
  }
  if (paths.length === 0) throw pathError(displayPath(dir, cwd), "the directory holds no *.yaml or *.yml file");
  return paths;
}

function refuseNul(text: string, shown: string): string {
  const at = text.indexOf("\u0000");
  if (at < 0) return text;
  const line = text.slice(0, at).split("\n").length;
  const message = `the file holds a NUL byte (line ${line}): it is not a YAML text file, and nothing of it is shown`;
  throw new ConfigError([{ file: shown, line, column: 0, pointer: "", message }], `${shown}:${line}  ${message}`);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Buffer, shown: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    const text = bytes.toString("utf8");
    const at = Math.max(0, text.indexOf("\uFFFD"));
    const before = text.slice(0, at);
    const line = before.split("\n").length;
    const column = at - before.lastIndexOf("\n");
    const offset = Buffer.byteLength(before, "utf8");
    const message =
      `the file is not valid UTF-8 (byte ` +
      `0x${bytes[offset]?.toString(16).padStart(2, "0") ?? "??"} at line ${line}, column ` +
      `${column}): save it as UTF-8`;
    throw new ConfigError(
      [{ file: shown, line, column, pointer: "", message }],
      `${shown}:${line}:${column}  ${message}`,
    );
  }
}
