// The files the Action writes (a downloaded plan, the drift, the SARIF): never through a symbolic link.
import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { writeFileSafely } from "../write-file.js";
import { ActionFailed } from "./context.js";

/** Refuses a path inside `workspace` whose folders below the workspace include a symbolic link. */
export function checkNoLinkedFolder(workspace: string, path: string, label: string): void {
  const root = resolve(workspace);
  const rel = relative(root, dirname(resolve(path)));
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return;
  let at = root;
  for (const part of rel.split(sep)) {
    at = join(at, part);
    let linked = false;
    try {
      linked = lstatSync(at).isSymbolicLink();
    } catch {
      return;
    }
    if (linked)
      throw new ActionFailed(
        `${label} ${path}: ${at} is a symbolic link; the Action writes no file through one (name a path ` +
          `without links)`,
      );
  }
  // Belt and braces: the folder's real path is where its name says.
  const real = realpathSync(dirname(resolve(path)));
  if (real !== join(realpathSync(root), rel))
    throw new ActionFailed(
      `${label} ${path}: its folder resolves to ${real}; the Action writes no file through a link`,
    );
}

export function outputPath(workspace: string, given: string, fallback: string, label: string): string {
  const path = resolve(workspace, given || fallback);
  checkNoLinkedFolder(workspace, path, label);
  return path;
}

/** Writes `text` at `path` in place of whatever is there, never through a link. */
export async function writeOutput(workspace: string, path: string, text: string, label: string): Promise<void> {
  checkNoLinkedFolder(workspace, path, label);
  await writeFileSafely(path, text, { force: true, mode: 0o600, label: `${label} ${path}` });
}
