// Public API of the configuration loader: file or directory → validated, normalized DesiredState, or a ConfigError
// listing every problem (file:line:col /pointer message).
import { ConfigError, formatProblem, type ConfigProblem } from "../errors.js";
import type { DesiredState } from "../sections/index.js";
import { EnvSecrets } from "../secrets/index.js";
import { checkFileText } from "./document.js";
import { readConfigFiles, type SourceFile } from "./load.js";
import { mergeFiles } from "./merge.js";
import { isError } from "./problems.js";
import { DEFAULT_CONFIG_PATH, type Env } from "../model/index.js";

export { DEFAULT_MAX_DELETES } from "./normalize.js";

export interface LoadOptions {
  env: Env;
  /** Where a relative path is resolved from, and what messages are relative to. */
  cwd?: string;
  /** What an unset `${env:NAME}` is: an error (default; plan, apply) or a warning (validate). */
  missingEnv?: "error" | "warning";
}

export interface LoadResult {
  desired: DesiredState;
  warnings: ConfigProblem[];
}

export interface CheckResult {
  desired?: DesiredState;
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
}

/** Loads a file or a directory of *.yaml. */
export async function loadConfig(path: string | undefined, opts: LoadOptions): Promise<LoadResult> {
  const files = await readConfigFiles(path ?? DEFAULT_CONFIG_PATH, opts.cwd ?? process.cwd());
  return orThrow(checkConfigSources(files, opts.env, opts.missingEnv));
}

/** Checks one document given as text (tests, editors). */
export function parseConfigText(text: string, file: string, env: Env): LoadResult {
  return orThrow(checkConfigSources([{ file, text }], env));
}

/** Checks the documents of one configuration without throwing. */
export function checkConfigSources(
  sources: SourceFile[],
  env: Env,
  missingEnv: "error" | "warning" = "error",
): CheckResult {
  const checked = sources.map((s) => checkFileText(s.text, s.file, env, missingEnv));
  const secrets = new EnvSecrets(
    env,
    checked.flatMap((c) => c.names),
  );
  const { problems, desired } = mergeFiles(checked, secrets);
  const redactor = secrets.redactor();
  const shown = problems.map((p) => ({ ...p, message: redactor.redact(p.message) }));
  const order = new Map(sources.map((s, i) => [s.file, i]));
  shown.sort((a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0) || a.line - b.line || a.column - b.column);
  const errors = shown.filter(isError);
  const warnings = shown.filter((p) => !isError(p));
  // wrangler's variable names the account when the file does not.
  const account = env.CLOUDFLARE_ACCOUNT_ID?.trim();
  if (desired && desired.account_id === undefined && account) {
    if (!/^[0-9a-f]{32}$/.test(account)) {
      errors.push({
        file: "CLOUDFLARE_ACCOUNT_ID",
        line: 0,
        column: 0,
        pointer: "",
        message: "expected an account id, 32 lower-case hex characters",
      });
    } else {
      desired.account_id = account;
    }
  }
  return errors.length === 0 && desired ? { desired, errors, warnings } : { errors, warnings };
}

function orThrow(result: CheckResult): LoadResult {
  if (result.errors.length > 0 || !result.desired) throw configError(result.errors, result.warnings);
  return { desired: result.desired, warnings: result.warnings };
}

export function configError(errors: ConfigProblem[], warnings: ConfigProblem[]): ConfigError {
  const n = errors.length;
  const w = warnings.length;
  const head =
    `${n} problem${n === 1 ? "" : "s"} in the configuration` +
    (w ? ` (and ${w} warning${w === 1 ? "" : "s"})` : "") +
    ":";
  const all = [...errors, ...warnings];
  return new ConfigError(all, [head, ...all.map((p) => `  ${formatProblem(p)}`)].join("\n"));
}
export { applyDefaults } from "./defaults.js";
export { MAX_CONFIG_FILE_BYTES, displayPath, readConfigFiles, type SourceFile } from "./load.js";
export { parseYaml } from "./parse.js";
export type { Locator } from "./problems.js";
