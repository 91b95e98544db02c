// The library API: what `import … from "zoneform"` gives another program.
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

export function createClient(opts: ClientOptions & { allowInsecureHttp?: boolean }): CloudflareClient {
  const { allowInsecureHttp, ...transport } = opts;
  checkPlainHttp(transport.baseUrl, {
    allowed: allowInsecureHttp === true,
    source: "baseUrl",
    optIn: "allowInsecureHttp: true",
  });
  return createTransport({ ...CLIENT_HINTS, ...transport });
}

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

/** The pure planner: the plan that makes `live` match `desired`. */
export function planFromLive(desired: DesiredState, live: LiveState): Plan {
  return planPure(desired, live);
}

export async function plan(desired: DesiredState, opts: RunOptions): Promise<Plan> {
  const p = await planZones({ client: opts.client, desired, parallelism: opts.parallelism });
  await preparePlanFile(p, desired);
  return p;
}

export async function readPlanFile(path: string): Promise<Plan> {
  const saved = await readPlanFileForm(path);
  checkSavedPlan(saved, `the plan file ${path}`);
  return saved;
}

export async function parsePlanFile(text: string, name: string): Promise<Plan> {
  const saved = await parsePlanText(text, name);
  checkSavedPlan(saved, `the plan file ${name}`);
  return saved;
}

export function planDigest(p: Plan, desired?: DesiredState): string {
  const made = desired ?? sealOf(p)?.desired;
  return made ? planForFile(p, made).digest! : fileDigest(p);
}

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
  expectDesired?: DesiredState;
  throwOnFailure?: boolean;
}

export function apply(p: Plan, opts: ApplyRunOptions): Promise<ApplyReport> {
  const { client, parallelism, force, expectDigest, env, throwOnFailure, expectDesired } = opts;
  const engine: ApplyOptions = { client, parallelism, force, expectDigest, env, throwOnFailure, expectDesired };
  return applyVerified(p, engine);
}

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

export function renderPlan(p: Plan, desired: DesiredState, format: "text" | "markdown" | "json" = "text"): string {
  const file = planForFile(p, desired);
  if (format === "json") return planFileText(file, desired);
  const shown = planForDisplay(p, desired);
  const body = format === "markdown" ? renderPlanMarkdown(shown) : renderPlanText(shown, { color: false });
  return p.zones.every((z) => z.errors.length === 0) ? `${body}${digestLine(file.digest!, format)}` : body;
}
