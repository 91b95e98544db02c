// The library API: what `import … from "zoneform"` gives another program. The same functions the CLI
// uses, without the CLI: load a configuration, plan it against the live zones (or plan a live
// snapshot purely), apply a plan, check for drift, export live zones, audit Page Shield. Every call
// that talks to Cloudflare takes a client (`createClient`), so one rate limiter serves a whole run.
import {
  createClient as createTransport,
  type ClientOptions,
  checkPlainHttp,
  type CloudflareClient,
} from "./cloudflare/index.js";
import { loadConfig as loadConfigFiles, parseConfigText } from "./config/index.js";
import {
  apply as applyVerified,
  type ApplyOptions,
  type ApplyReport,
  planZones,
  sealOf,
  readPlanFile as readPlanFileForm,
  checkSavedPlan,
  readLive as readLiveZones,
} from "./engine/index.js";
import type { Plan, PlanSummary, Env } from "./model/index.js";
import {
  planDigest as fileDigest,
  parsePlanText,
  plan as planPure,
  type LiveState,
  type ZoneLive,
  renderDriftReport,
  renderPlanMarkdown,
  renderPlanText,
  digestLine,
  planFileText,
  planForDisplay,
  planForFile,
  preparePlanFile,
  summariseZones,
  totalChanges,
} from "./plan/index.js";
import { CLIENT_HINTS, type DesiredState } from "./sections/index.js";

export {
  type ClientOptions,
  type ClientStats,
  type CloudflareClient,
  type WireOutcome,
  type WireRequest,
  resolveCredentials,
  DEFAULT_API_URL,
} from "./cloudflare/index.js";
export { parseConfigText };
export { exportZones, type ExportOptions, type ExportResult } from "./export/index.js";
export { runAudit as audit, type AuditOptions, type AuditResult } from "./audit/index.js";
export {
  ApiError,
  ApplyError,
  ConfigError,
  NetworkError,
  RunStoppedError,
  StalePlanError,
  UnsafePlanError,
  ZoneformError,
  EXIT,
} from "./errors.js";
export type { ApplyReport } from "./engine/index.js";
export type { DesiredState, DesiredZone } from "./sections/index.js";
export type { Change, Operation, Plan, PlanSummary, ZonePlan } from "./model/index.js";
export type { LiveState, ZoneLive };

/**
 * A client for the Cloudflare API: one rate limiter for a whole run; a 403 names the permission the call
 * needs. A plain `http://` baseUrl to a host that is not loopback (127.0.0.0/8, ::1, localhost) throws
 * (exit code 3) before any request, unless `allowInsecureHttp: true` opts in to sending the credentials
 * unencrypted.
 */
export function createClient(opts: ClientOptions & { allowInsecureHttp?: boolean }): CloudflareClient {
  const { allowInsecureHttp, ...transport } = opts;
  checkPlainHttp(transport.baseUrl, {
    allowed: allowInsecureHttp === true,
    source: "baseUrl",
    optIn: "allowInsecureHttp: true",
  });
  return createTransport({ ...CLIENT_HINTS, ...transport });
}

/** Loads a configuration (a file, or a directory of `*.yaml`): schema, rules, `${env:…}` from `env`. */
export function loadConfig(path: string, opts: { env?: Env; cwd?: string } = {}) {
  return loadConfigFiles(path, { env: opts.env ?? process.env, cwd: opts.cwd ?? process.cwd() });
}

export interface RunOptions {
  client: CloudflareClient;
  /** Requests in flight (default 8). */
  parallelism?: number;
}

/** Reads the live zones the desired state names (I/O only): what `planFromLive` takes. */
export function readLive(desired: DesiredState, opts: RunOptions): Promise<LiveState> {
  return readLiveZones({ client: opts.client, desired, parallelism: opts.parallelism });
}

/** The pure planner: the plan that makes `live` match `desired`. No client, no clock, no environment. */
export function planFromLive(desired: DesiredState, live: LiveState): Plan {
  return planPure(desired, live);
}

/**
 * Reads the live zones and plans them, with the checks that need the API (Logpush destinations): the
 * engine's plan, the one `zoneform plan` makes (its `${env:…}` values bound for its digest already).
 */
export async function plan(desired: DesiredState, opts: RunOptions): Promise<Plan> {
  const p = await planZones({ client: opts.client, desired, parallelism: opts.parallelism });
  await preparePlanFile(p, desired);
  return p;
}

/**
 * Reads a plan saved with `zoneform plan --out` and checks it as `zoneform show` does, without the API
 * or the environment: its form (ConfigError, exit 3 when it is not a plan of this format), the digest it
 * records, the form of its bound values, and that what it shows agrees with its operations (else an
 * error with exit code 1). Resolves with the plan in file form, for `planDigest`, `planCounts`, `apply`.
 */
export async function readPlanFile(path: string): Promise<Plan> {
  const saved = await readPlanFileForm(path);
  checkSavedPlan(saved, `the plan file ${path}`);
  return saved;
}

/**
 * A saved plan's text (a downloaded artifact), checked as `readPlanFile` checks a file; `name` is how
 * messages name it (`the plan file <name>`).
 */
export async function parsePlanFile(text: string, name: string): Promise<Plan> {
  const saved = await parsePlanText(text, name);
  checkSavedPlan(saved, `the plan file ${name}`);
  return saved;
}

/**
 * The digest `zoneform plan` prints for a plan (`sha256:…`): of a saved plan (as readPlanFile returns
 * it), or of a plan plan() made (its desired state is known), or with `desired`, of one planFromLive made.
 */
export function planDigest(p: Plan, desired?: DesiredState): string {
  const made = desired ?? sealOf(p)?.desired;
  return made ? planForFile(p, made).digest! : fileDigest(p);
}

/** How many changes of each kind a plan makes, counted from its changes (never taken from its `summary`). */
export function planCounts(p: Plan): PlanSummary {
  return summariseZones(p.zones);
}

export interface ApplyRunOptions extends RunOptions {
  /** Apply even when a zone's deletes exceed `safety.max_deletes` (the CLI's --force). */
  force?: boolean;
  /** Refuse the plan unless its digest (`sha256:…`) is this one (the CLI's --expect-digest). */
  expectDigest?: string;
  /** Where a saved plan's `${env:NAME}` references are read (default process.env). */
  env?: Env;
  /**
   * The desired state the plan must have been made from (a `loadConfig` result's `desired`, as the CLI's
   * `apply PLAN -c CONFIG`): compared zone by zone and section by section before any read; a
   * difference is a StalePlanError naming the zone and sections.
   */
  expectDesired?: DesiredState;
  /**
   * Default true: a failed change throws ApplyError (exit 4) or, when nothing was written, an error with exit code 1.
   */
  throwOnFailure?: boolean;
}

/**
 * Applies a plan `plan()` returned, or a saved plan (the parsed JSON of `zoneform plan --out`), after
 * verifying it exactly as `zoneform apply` does: the plan is unedited (digest) and shows what its
 * operations do, its references have the values it was made with, it was made from `expectDesired`
 * when given, the live zones read again give the same plan, calls and all it shows (else
 * StalePlanError), every zone could be planned, and deletes are within `safety.max_deletes` unless `force`
 * (UnsafePlanError); nothing is written when a check fails. Then it makes the calls (zones
 * concurrently, a zone's changes in order) and resolves with the report.
 */
export function apply(p: Plan, opts: ApplyRunOptions): Promise<ApplyReport> {
  const { client, parallelism, force, expectDigest, env, throwOnFailure, expectDesired } = opts;
  const engine: ApplyOptions = { client, parallelism, force, expectDigest, env, throwOnFailure, expectDesired };
  return applyVerified(p, engine);
}

/** Whether the live zones still match the desired state, with the plan that would make them match. */
export async function drift(
  desired: DesiredState,
  opts: RunOptions,
): Promise<{ drifted: boolean; plan: Plan; report: string }> {
  const p = await plan(desired, opts);
  return {
    drifted: totalChanges(summariseZones(p.zones)) > 0,
    plan: p,
    report: renderDriftReport(planForDisplay(p, desired)),
  };
}

/**
 * A plan rendered as `zoneform plan` shows it (secrets hidden): text or Markdown ending with its digest
 * line (when every zone could be planned), or the JSON plan file.
 */
export function renderPlan(p: Plan, desired: DesiredState, format: "text" | "markdown" | "json" = "text"): string {
  const file = planForFile(p, desired);
  if (format === "json") return planFileText(file, desired);
  const shown = planForDisplay(p, desired);
  const body = format === "markdown" ? renderPlanMarkdown(shown) : renderPlanText(shown, { color: false });
  return p.zones.every((z) => z.errors.length === 0) ? `${body}${digestLine(file.digest!, format)}` : body;
}
