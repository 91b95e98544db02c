// What plan, apply and drift share: load the file, pick the zones, build a client, plan through the engine
// (engine/plan.ts, the library's plan()), and render the plan to stdout in the chosen format.
import type { Command } from "commander";
import type { CloudflareClient } from "../cloudflare/index.js";
import { checkConfigSources, loadConfig, readConfigFiles } from "../config/index.js";
import { ConfigError, UsageError, formatProblem } from "../errors.js";
import { type ApplyHooks, planZones } from "../engine/index.js";
import { ACCOUNT_SECTIONS, type DesiredState } from "../sections/index.js";
import type { Plan } from "../model/index.js";
import {
  serialisePlan,
  GITHUB_COMMENT_LIMIT,
  renderPlanMarkdown,
  type MarkdownOptions,
  renderPlanText,
  displayRedactor,
  planForDisplay,
  planForFile,
  preparePlanFile,
  planUnits,
  unitCount,
} from "../plan/index.js";
import { printable } from "../safe-text.js";
import { clientFromOptions } from "./client-options.js";
import { useColor } from "./color.js";
import { hideVariables, type CliIO } from "./io.js";
import { tokenVariables } from "./account-tokens.js";
import { progressFor, type Progress } from "./progress.js";
import { zonesNamed } from "./select-zones.js";
import { inShard, type Shard } from "./shard.js";
import { fitFor } from "./width.js";

export interface PlanningOptions {
  config?: string;
  zone?: string[];
  verbose?: boolean;
  color?: boolean;
  parallelism?: number;
  shard?: Shard;
  quiet?: boolean;
  base?: string;
  [flag: string]: unknown;
}

/** The one colour decision (src/cli/color.ts), kept importable from here. */
export { useColor };

/** Keeps the zones named by --zone (id or name; an unknown one is a usage error) and in --shard. */
export function selectZones(desired: DesiredState, wanted: string[] | undefined, shard?: Shard): DesiredState {
  if (!shard && (!wanted || wanted.length === 0)) return desired;
  if (shard) desired = { ...desired, zones: desired.zones.filter((z) => inShard(z.zone_id, shard)) };
  return withoutAccountLists(zonesNamed(desired, wanted));
}

function withoutAccountLists(desired: DesiredState): DesiredState {
  if (!desired.accounts) return desired;
  const keys = ACCOUNT_SECTIONS.map((s) => s.key);
  const strip = <T extends object>(value: T): T =>
    Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k) && k !== "prune")) as T;
  return {
    ...desired,
    accounts: desired.accounts.map((a) => ({
      ...strip(a),
      prune: true,
      ...(a.declared ? { declared: strip(a.declared) } : {}),
    })),
  };
}

export async function loadDesired(opts: PlanningOptions, io: CliIO): Promise<DesiredState> {
  const { desired, warnings } = await loadConfig(opts.config ?? "zoneform.yaml", { env: io.env, cwd: io.cwd });
  hideVariables(io, [...desired.secrets.names, ...tokenVariables(desired)]);
  for (const w of warnings) io.stderr.write(`${formatProblem(w)}\n`);
  return selectZones(desired, opts.zone, opts.shard);
}

/**
 * The base configuration (`--base`): read for what audit checks alone, so its variables need not be set and its
 * problems are one line (it is the branch the change is reviewed against, already checked there).
 */
async function loadBase(path: string, io: CliIO): Promise<DesiredState> {
  const checked = checkConfigSources(await readConfigFiles(path, io.cwd), io.env, "warning");
  if (!checked.desired)
    throw new ConfigError(checked.errors, `--base ${path}: ${checked.errors.length} problem(s); plan without --base`);
  return checked.desired;
}

/** Loads the file and plans it through the engine (`plan`, `drift`): the plan, its desired state, the open client. */
export async function makePlan(
  opts: PlanningOptions,
  io: CliIO,
  label = "plan",
): Promise<{ plan: Plan; desired: DesiredState; client: CloudflareClient; progress: Progress }> {
  const desired = await loadDesired(opts, io);
  const base = opts.base === undefined ? undefined : await loadBase(opts.base, io);
  const progress = progressFor(io, opts);
  const client = clientFromOptions(opts, io, displayRedactor(desired), progress, desired);
  try {
    const plan = await readZones(client, desired, opts, progress, label, base);
    // A plan file's form (`--format json`) binds the references' values: derived at once, not one by one.
    if (opts.format === "json") await preparePlanFile(plan, desired);
    return { plan, desired, client, progress };
  } catch (err) {
    await client.close();
    throw err;
  }
}

/**
 * The engine's reading hooks for the CLI: `Reading N zone(s)…` with --verbose, then the progress line (`plan: 3/40
 * zones read, …`; with --verbose also a line per zone).
 */
export function readingHooks(
  opts: PlanningOptions,
  progress: Progress,
  label = "plan",
): Pick<ApplyHooks, "onDesired" | "readProgress" | "onZoneDone"> {
  const verbose = opts.verbose ? (l: string) => progress.log(printable(l)) : undefined;
  return {
    onDesired: (desired) => {
      const units = planUnits(desired).map(({ unit }) => unit);
      const accounts = units.some((u) => u.scope === "account");
      verbose?.(`Reading ${unitCount(units)}…`);
      progress.begin(label, accounts ? "zones and accounts read" : "zones read", units.length);
    },
    readProgress: verbose,
    onZoneDone: (done, total) => progress.update(done, total),
  };
}

async function readZones(
  client: CloudflareClient,
  desired: DesiredState,
  opts: PlanningOptions,
  progress: Progress,
  label = "plan",
  base?: DesiredState,
): Promise<Plan> {
  const hooks = readingHooks(opts, progress, label);
  hooks.onDesired!(desired);
  try {
    return await planZones({
      client,
      desired,
      base,
      parallelism: opts.parallelism,
      progress: hooks.readProgress,
      onZoneDone: hooks.onZoneDone,
    });
  } finally {
    progress.end();
  }
}

export type PlanFormat = "text" | "json" | "markdown";

export function parseFormat(
  value: string | undefined,
  allowed: readonly string[] = ["text", "json", "markdown"],
): PlanFormat {
  const f = value ?? "text";
  if (!allowed.includes(f)) throw new UsageError(`--format ${f}: expected one of ${allowed.join(", ")}`);
  return f as PlanFormat;
}

export function renderPlan(
  plan: Plan,
  desired: DesiredState,
  format: PlanFormat,
  io: CliIO,
  opts: PlanningOptions,
): string {
  if (format === "json") return serialisePlan(plan, desired);
  const shown = planForDisplay(plan, desired);
  if (format === "markdown")
    return renderPlanMarkdown(shown, markdownOptions(opts as { maxBytes?: string; out?: unknown }));
  // Fitted to the terminal.
  return fitFor(
    io,
    io.stdout,
    renderPlanText(shown, { color: useColor(io, opts), verbose: opts.verbose, errors: false }),
    { long: "break" },
  );
}

/** `--max-bytes N`: the Markdown size cap (0: none; default GitHub's comment limit). */
export function addMaxBytesOption(cmd: Command): Command {
  return cmd.option(
    "--max-bytes <n>",
    `with --format markdown: stay under N characters, leaving zones out with a note (default ` +
      `${GITHUB_COMMENT_LIMIT}, GitHub's comment limit; 0: no limit)`,
  );
}

/**
 * The Markdown options of a command's flags: the cap, and where the full plan is (`--out`, or the plan file shown).
 */
export function markdownOptions(opts: { maxBytes?: string; out?: unknown; planFile?: string }): MarkdownOptions {
  const raw = opts.maxBytes;
  if (raw !== undefined && !/^\d+$/.test(String(raw).trim()))
    throw new UsageError(`--max-bytes must be a whole number of characters, got "${raw}"`);
  const file = typeof opts.out === "string" ? opts.out : opts.planFile;
  return {
    ...(raw !== undefined ? { maxBytes: Number(raw) } : {}),
    ...(file ? { fullPlan: `the saved plan, \`zoneform show ${file}\`` } : {}),
  };
}

/** The plan's digest (`sha256:…`), over its file form: what `apply --expect-digest` checks. */
export function digestOf(plan: Plan, desired: DesiredState): string {
  return planForFile(plan, desired).digest!;
}

/** Whether every zone could be planned (a plan with a failed zone gets no summary and no digest). */
export function planSucceeded(plan: Plan): boolean {
  return plan.zones.every((z) => z.errors.length === 0);
}
