// The provenance of the configuration files an audit read, for its evidence: each file's sha256 (of its bytes as
// read) and, when it sits in a git checkout, the checkout's commit and whether the file is that commit's.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import type { ConfigFileProvenance, GitProvenance } from "../audit/index.js";
import type { SourceFile } from "../config/index.js";
import type { Env } from "../model/index.js";
import { printable } from "../safe-text.js";

const GIT_TIMEOUT_MS = 5000;
const MAX_GIT_OUTPUT = 1024 * 1024;

function gitEnv(env: Env): NodeJS.ProcessEnv {
  const pass = (k: string) => env[k] ?? process.env[k];
  const out: NodeJS.ProcessEnv = {};
  for (const k of ["PATH", "HOME", "USERPROFILE", "SYSTEMROOT", "XDG_CONFIG_HOME"]) {
    const v = pass(k);
    if (v !== undefined) out[k] = v;
  }
  // No index refresh written (a read-only look), pathspecs taken literally, messages in English.
  return { ...out, GIT_OPTIONAL_LOCKS: "0", GIT_LITERAL_PATHSPECS: "1", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
}

interface GitAnswer {
  stdout: string;
  error?: NodeJS.ErrnoException & { killed?: boolean; stderr?: string };
}

function git(cwd: string, args: readonly string[], env: Env): Promise<GitAnswer> {
  return new Promise((resolve) => {
    execFile(
      "git",
      ["-c", "core.fsmonitor=false", ...args],
      {
        cwd,
        env: gitEnv(env),
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: MAX_GIT_OUTPUT,
        encoding: "utf8",
        windowsHide: true,
      },
      (err, stdout, stderr) =>
        resolve({ stdout, ...(err ? { error: Object.assign(err as NodeJS.ErrnoException, { stderr }) } : {}) }),
    );
  });
}

/**
 * The file's git state: its checkout's HEAD commit, and clean when `git status` shows nothing for the file (tracked,
 * no change staged or not, not ignored), so the bytes read are the commit's.
 */
async function gitState(file: string, env: Env): Promise<GitProvenance | null> {
  // No `.git` in the file's folder or above: git would find no checkout either, so it is not started.
  if (!inGitCheckout(path.dirname(file))) return null;
  const args = ["status", "--porcelain=v2", "--branch", "--ignored=matching", "--untracked-files=all"];
  const { stdout, error } = await git(path.dirname(file), [...args, "--", path.basename(file)], env);
  if (error) {
    if (error.code === "ENOENT" && !error.stderr) return null;
    if (error.killed) return { error: `git did not answer within ${GIT_TIMEOUT_MS / 1000} s` };
    const said = (error.stderr ?? "").trim();
    if (/not a git repository/i.test(said)) return null;
    return { error: printable(said.split("\n")[0] || error.message).slice(0, 300) };
  }
  const lines = stdout.split("\n").filter((l) => l !== "");
  const oid = lines.find((l) => l.startsWith("# branch.oid "))?.slice("# branch.oid ".length);
  return {
    commit: oid !== undefined && /^[0-9a-f]{40,64}$/.test(oid) ? oid : null,
    clean: lines.every((l) => l.startsWith("#")),
  };
}

function inGitCheckout(dir: string): boolean {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (existsSync(path.join(at, ".git"))) return true;
    if (path.dirname(at) === at) return false;
  }
}

/** Each file's path as shown, sha256 and git state (git asked for every file at once). */
export function configProvenance(
  sources: readonly SourceFile[],
  cwd: string,
  env: Env,
): Promise<ConfigFileProvenance[]> {
  return Promise.all(
    sources.map(async (s) => ({
      path: s.file,
      sha256: s.sha256 ?? createHash("sha256").update(s.text, "utf8").digest("hex"),
      git: await gitState(path.resolve(cwd, s.file), env),
    })),
  );
}
