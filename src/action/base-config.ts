// The pull request's base configuration, for `plan --base`.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { isCommitSha } from "./marker.js";

const GIT_TIMEOUT_MS = 60_000;
const MAX_GIT_OUTPUT = 16 * 1024 * 1024;

function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-C", cwd, ...args],
      { timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_GIT_OUTPUT, encoding: "utf8" },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

/** The base commit's configuration as files, or why it could not be read. */
export async function readBaseConfig(
  workspace: string,
  config: string,
  base: unknown,
): Promise<{ path: string } | { why: string }> {
  if (!isCommitSha(base)) return { why: "the event names no base commit" };
  const rel = relative(workspace, config).split("\\").join("/");
  if (rel.startsWith("..")) return { why: "the configuration is outside the workspace" };
  try {
    await git(workspace, ["cat-file", "-e", `${base}^{commit}`]).catch(() =>
      git(workspace, ["fetch", "--no-tags", "--depth=1", "origin", base]),
    );
    const at = (name?: string) => `${base}:${[rel, name].filter(Boolean).join("/")}`;
    const kind = (await git(workspace, ["cat-file", "-t", at()]).catch(() => "")).trim();
    const dir = await mkdtemp(join(tmpdir(), "zoneform-base-"));
    if (kind === "blob") {
      const file = join(dir, basename(rel));
      await writeFile(file, await git(workspace, ["show", at()]));
      return { path: file };
    }
    // A configuration the base did not have: an empty one, so every check is new.
    if (kind !== "tree") {
      await writeFile(join(dir, "base.yaml"), "version: 1\nzones: []\n");
      return { path: dir };
    }
    const names = (await git(workspace, ["ls-tree", "--name-only", at()]))
      .split("\n")
      .filter((n) => /\.ya?ml$/i.test(n) && !n.includes("/"));
    await mkdir(dir, { recursive: true });
    for (const name of names) await writeFile(join(dir, name), await git(workspace, ["show", at(name)]));
    if (names.length === 0) await writeFile(join(dir, "base.yaml"), "version: 1\nzones: []\n");
    return { path: dir };
  } catch (err) {
    return { why: `git could not read it (${(err as Error).message.split("\n")[0]})` };
  }
}
