// Finds and reads the files of a configuration: one file, or every *.yaml / *.yml of a directory
// (sorted, not recursive). Paths in messages are shown relative to the working directory.
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../errors.js";

export const DEFAULT_CONFIG_PATH = "zoneform.yaml";

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
    try {
      files.push({ file: displayPath(p, cwd), text: await readFile(p, "utf8") });
    } catch (err) {
      throw notFound(displayPath(p, cwd), `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  }
  return files;
}
