// Finds and reads the files of a configuration: one file, or every *.yaml / *.yml of a directory
// (sorted, not recursive). Paths in messages are shown relative to the working directory.
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../errors.js";
import { describeReadProblem, FileReadError, readRegularFile } from "../read-file.js";

export const DEFAULT_CONFIG_PATH = "zoneform.yaml";

/**
 * Largest configuration file read (10 MiB, thousands of zones): a bigger one is refused at once rather
 * than parsed for many seconds. A directory of files can hold more.
 */
export const MAX_CONFIG_FILE_BYTES = 10 * 1024 * 1024;

export interface SourceFile {
  /** As shown in messages: relative to cwd when inside it. */
  file: string;
  text: string;
}

export function displayPath(absolute: string, cwd: string): string {
  const rel = path.relative(cwd, absolute);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : absolute;
}

function notFound(shown: string, message: string): ConfigError {
  return new ConfigError([{ file: shown, line: 0, column: 0, pointer: "", message }], `${shown}: ${message}`);
}

export async function readConfigFiles(configPath: string, cwd: string): Promise<SourceFile[]> {
  const absolute = path.resolve(cwd, configPath);
  const shown = displayPath(absolute, cwd);
  let info;
  try {
    info = await stat(absolute);
  } catch {
    const hint =
      configPath === DEFAULT_CONFIG_PATH
        ? "no configuration found: create zoneform.yaml (see examples/minimal.yaml) or pass -c PATH (a file or a directory of *.yaml)"
        : "no such file or directory";
    throw notFound(shown, hint);
  }
  let paths: string[];
  if (info.isDirectory()) {
    const entries = await readdir(absolute, { withFileTypes: true });
    paths = entries
      .filter((e) => (e.isFile() || e.isSymbolicLink()) && /\.ya?ml$/i.test(e.name))
      .map((e) => path.join(absolute, e.name))
      .sort();
    if (paths.length === 0) throw notFound(shown, "the directory holds no *.yaml or *.yml file");
  } else {
    paths = [absolute];
  }
  const files: SourceFile[] = [];
  for (const p of paths) {
    const shownFile = displayPath(p, cwd);
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(p, MAX_CONFIG_FILE_BYTES);
    } catch (err) {
      if (!(err instanceof FileReadError)) throw err;
      const hint = err.problem.kind === "too-large" ? ": split the zones over several files in a directory (-c DIR)" : "";
      throw notFound(shownFile, `${describeReadProblem(err.problem, MAX_CONFIG_FILE_BYTES)}${hint}`);
    }
    files.push({ file: shownFile, text: decodeUtf8(bytes, shownFile) });
  }
  return files;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The file's text; bytes that are not UTF-8 (a Latin-1 file, a binary) are refused with their position. */
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
    const message = `the file is not valid UTF-8 (byte 0x${bytes[offset]?.toString(16).padStart(2, "0") ?? "??"} at line ${line}, column ${column}): save it as UTF-8`;
    throw new ConfigError([{ file: shown, line, column, pointer: "", message }], `${shown}:${line}:${column}  ${message}`);
  }
}
