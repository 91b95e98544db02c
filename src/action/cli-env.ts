// The environment the zoneform CLI is given inside the Action: an allow-list, never the runner's own.
// Spec: docs/ci.md, "What zoneform is given".
import { readdir, stat } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { readRegularFile } from "../read-file.js";
import { printable } from "../safe-text.js";
import { replaceTemplateTokens } from "../template.js";
import type { Env } from "./runner.js";

/** GitHub's, the runner's and the Action's inputs (INPUT_GITHUB-TOKEN): never given to the CLI. */
const RUNNER_PREFIXES = ["GITHUB_", "ACTIONS_", "RUNNER_", "INPUT_"] as const;
/** zoneform's own variables (docs/connecting.md, docs/commands/README.md) and the locale's categories. */
const PASSED_PREFIXES = ["CLOUDFLARE_", "ZONEFORM_", "LC_"] as const;
const PASSED_NAMES: ReadonlySet<string> = new Set([
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "NODE_EXTRA_CA_CERTS",
  "NO_COLOR",
  "COLUMNS",
]);
/** config/load.ts reads no larger configuration file. */
const MAX_CONFIG_FILE_BYTES = 10 * 1024 * 1024;

export interface EnvReference {
  name: string;
  file: string;
}

export function neverPassed(name: string, value: string | undefined, token: string): string | undefined {
  const upper = name.toUpperCase();
  if (RUNNER_PREFIXES.some((p) => upper.startsWith(p))) return "a runner variable";
  // The token may sit in a variable of any name too (`env: GH_TOKEN: ${{ github.token }}`).
  if (token !== "" && value === token) return "it holds the Action's github-token";
  return undefined;
}

export function cliEnvironment(env: Env, referenced: Iterable<string>, token: string): Env {
  const wanted = new Set(referenced);
  const out: Env = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || neverPassed(name, value, token) !== undefined) continue;
    const upper = name.toUpperCase();
    if (wanted.has(name) || PASSED_NAMES.has(upper) || PASSED_PREFIXES.some((p) => upper.startsWith(p)))
      out[name] = value;
  }
  return out;
}

async function configFiles(config: string): Promise<string[]> {
  try {
    if (!(await stat(config)).isDirectory()) return [config];
    const entries = await readdir(config, { withFileTypes: true });
    return entries
      .filter((e) => /\.ya?ml$/i.test(e.name) && (e.isFile() || e.isSymbolicLink()))
      .map((e) => e.name)
      .sort()
      .map((name) => join(config, name));
  } catch {
    return [];
  }
}

export async function configReferences(config: string, workspace: string): Promise<EnvReference[]> {
  const out: EnvReference[] = [];
  for (const path of await configFiles(config)) {
    let text: string;
    try {
      text = (await readRegularFile(path, MAX_CONFIG_FILE_BYTES)).toString("utf8");
    } catch {
      continue;
    }
    const rel = relative(workspace, path);
    const file = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
    replaceTemplateTokens(text, (whole, inside) => {
      if (inside.startsWith("env:")) out.push({ name: inside.slice(4), file });
      return whole;
    });
  }
  return out;
}

export function refusedReferences(refs: readonly EnvReference[], env: Env, token: string): string | undefined {
  const seen = new Set<string>();
  const named: string[] = [];
  for (const { name, file } of refs) {
    const why = neverPassed(name, env[name], token);
    const key = JSON.stringify([name, file]);
    if (why === undefined || seen.has(key)) continue;
    seen.add(key);
    named.push(`\${env:${printable(name)}} in ${printable(file)} (${why})`);
  }
  if (named.length === 0) return undefined;
  return (
    `${named.join(", ")}: runner variables (${RUNNER_PREFIXES.map((p) => `${p}*`).join(", ")}) and the ` +
    "github-token are never passed to zoneform; give the value a variable of its own in the step's env:"
  );
}
