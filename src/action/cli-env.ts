// The environment the zoneform CLI is given inside the Action: an allow-list, never the runner's own.
// A pull request's configuration can reference any variable with `${env:NAME}` and zoneform would put
// its value into a write (a Logpush destination, a description), so the CLI gets only what the files
// reference, zoneform's own variables and what Node needs; the runner's variables (its runtime token,
// the job's GITHUB_TOKEN, the Action's inputs with github-token) never, even when referenced. The
// Action's own code (GitHub's API, outputs, summary) keeps the runner's whole environment. docs/ci.md,
// "What zoneform is given", lists it.
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
/**
 * What Node and the HTTP client read, and the CLI's output settings (NO_COLOR, COLUMNS: docs/commands/
 * README.md), compared in upper case (http_proxy as HTTP_PROXY).
 */
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

/** A `${env:NAME}` reference of a configuration file: the name as written, the file as shown. */
export interface EnvReference {
  name: string;
  file: string;
}

/** Why a variable is never given to the CLI, or undefined when it may be. */
export function neverPassed(name: string, value: string | undefined, token: string): string | undefined {
  const upper = name.toUpperCase();
  if (RUNNER_PREFIXES.some((p) => upper.startsWith(p))) return "a runner variable";
  // The token may sit in a variable of any name too (`env: GH_TOKEN: ${{ github.token }}`).
  if (token !== "" && value === token) return "it holds the Action's github-token";
  return undefined;
}

/**
 * The CLI's environment: of the runner's `env`, the variables named in `referenced`, CLOUDFLARE_*,
 * ZONEFORM_*, LC_* and PASSED_NAMES, less every variable `neverPassed` refuses.
 */
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

/** The files config/load.ts reads for `config`: the file, or the *.yaml / *.yml of the folder, sorted. */
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
    return []; // the CLI says why it cannot be read
  }
}

/**
 * Every `${env:…}` reference in the text of the configuration's files, by the file's one template
 * syntax (template.ts: `$${` is an escape). The name is kept as written even when it is not a valid
 * one (`INPUT_GITHUB-TOKEN`), so that such a reference of a runner variable is refused by name too.
 */
export async function configReferences(config: string, workspace: string): Promise<EnvReference[]> {
  const out: EnvReference[] = [];
  for (const path of await configFiles(config)) {
    let text: string;
    try {
      text = (await readRegularFile(path, MAX_CONFIG_FILE_BYTES)).toString("utf8");
    } catch {
      continue; // the CLI says why it cannot be read
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

/**
 * One line naming each reference of a variable the CLI is never given, and its file; undefined when
 * there is none. Without it the CLI would say only that the variable is not set.
 */
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
