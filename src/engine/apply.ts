// The engine's apply: the one way a plan is written, for the library and the CLI alike.
import type { CloudflareClient } from "../cloudflare/index.js";
import { RuntimeError, StalePlanError } from "../errors.js";
import type { DesiredState } from "../sections/index.js";
import type { Env, Plan } from "../model/index.js";
import {
  planDigest,
  checkPlanDocument,
  fileForm,
  planForFile,
  preparePlanFile,
  summariseZones,
  totalChanges,
  planUnits,
  shownTemplate,
  unitKey,
} from "../plan/index.js";
import { assertChecked, checkWrites } from "./dry-run.js";
import { assertApplied, executePlan, type ApplyReport, type ExecuteOptions } from "./execute.js";
import { checkAtApply, planZones, sealOf } from "./plan.js";
import { assertSameDesired } from "./same-desired.js";
import {
  assertDigest,
  assertInputsForm,
  assertNoZoneErrors,
  assertSafe,
  assertSamePlan,
  findSafetyViolations,
  checkSavedPlan,
  desiredFromPlan,
} from "./verify.js";

export interface ApplyHooks {
  readProgress?: (line: string) => void;
  onZoneDone?: (done: number, total: number) => void;
  onDesired?: (desired: DesiredState) => void | Promise<void>;
  onPlan?: (plan: Plan, desired: DesiredState, digest: string) => void | Promise<void>;
  /** Right before the first write: the last point where nothing has been written. */
  beforeWrites?: (plan: Plan) => void | Promise<void>;
  /** Progress, stop and report of the execution (execute.ts). */
  execution?: Pick<ExecuteOptions, "progress" | "shouldStop" | "onChange" | "report">;
}

export interface ApplyOptions extends ApplyHooks {
  client: CloudflareClient;
  /** Requests in flight (default 8). */
  parallelism?: number;
  /** Where a plan's `${env:NAME}` references are read (default process.env). */
  env?: Env;
  /** Apply even when a zone's deletes exceed `safety.max_deletes` (`--force`). */
  force?: boolean;
  /** Refuse the plan unless its digest (`sha256:…`) is this one (`--expect-digest`). */
  expectDigest?: string;
  /** Where the plan came from, for messages (a plan file's path). */
  file?: string;
  expectDesired?: DesiredState;
  /** How messages name `expectDesired` (default "the configuration given"). */
  expectDesiredName?: string;
  /** Keeps some of the plan's zones (`--zone`, `--shard`); default all. */
  select?: (desired: DesiredState) => DesiredState;
  throwOnFailure?: boolean;
}

export interface OpenedPlan {
  plan: Plan;
  desired: DesiredState;
  digest: string;
}

function nameOf(opts: Pick<ApplyOptions, "file">): string {
  return opts.file !== undefined ? `the plan file ${opts.file}` : "the plan given to apply";
}

export async function openPlan(
  given: Plan,
  opts: Pick<ApplyOptions, "env" | "expectDigest" | "file"> = {},
): Promise<OpenedPlan> {
  const name = nameOf(opts);
  const seal = sealOf(given);
  if (seal) {
    if (planDigest(given) !== seal.digest) {
      throw new StalePlanError(
        `${name} was changed after zoneform made it (an operation, a body or a zone differs); nothing was ` +
          `written. Make a new plan.`,
        ["edited"],
      );
    }
    await preparePlanFile(given, seal.desired);
    const filed = planForFile(given, seal.desired);
    return { plan: filed, desired: seal.desired, digest: assertDigest(filed, name, opts.expectDigest) };
  }
  const plan = await checkPlanDocument(given, opts.file ?? "(plan)", name);
  const digest = checkSavedPlan(plan, name, opts.expectDigest, false);
  const desired = await desiredFromPlan(plan, opts.file ?? "given to apply", opts.env ?? process.env);
  return { plan, desired, digest };
}

const noChanges = (): ApplyReport => ({ done: [], failed: [], notDone: [], uncertain: [] });

export async function apply(given: Plan, opts: ApplyOptions): Promise<ApplyReport> {
  const opened = await openPlan(given, opts);
  const desired = opts.select ? opts.select(opened.desired) : opened.desired;
  if (opts.expectDesired) {
    const config = opts.select ? opts.select(opts.expectDesired) : opts.expectDesired;
    assertSameDesired(desired, config, nameOf(opts), opts.expectDesiredName ?? "the configuration given");
  }
  const wanted = new Set(planUnits(desired).map(({ unit }) => unitKey(unit)));
  const selected: Plan = { ...opened.plan, zones: opened.plan.zones.filter((z) => wanted.has(unitKey(z))) };
  await opts.onDesired?.(desired);
  if (totalChanges(summariseZones(selected.zones)) === 0) {
    await opts.onPlan?.(selected, desired, opened.digest);
    return noChanges();
  }
  const fresh = await planZones({
    client: opts.client,
    desired,
    parallelism: opts.parallelism,
    progress: opts.readProgress,
    onZoneDone: opts.onZoneDone,
  });
  assertSamePlan(fileForm(selected, desired), fileForm(fresh, desired));
  // The same plan, yet a salt that is not its own: its bound values were made for another content.
  assertInputsForm(opened.plan, nameOf(opts), { salt: true });
  assertNoZoneErrors(fresh);
  await opts.onPlan?.(fresh, desired, opened.digest);
  return run(fresh, desired, opts);
}

async function checkFirst(plan: Plan, desired: DesiredState, opts: ApplyOptions): Promise<number> {
  const [report, found] = await Promise.all([
    checkWrites(plan, {
      client: opts.client,
      secrets: desired.secrets,
      parallelism: opts.parallelism,
      progress: opts.execution?.progress,
    }),
    checkAtApply(plan, desired, opts.client),
  ]);
  assertChecked(report);
  if (found.length > 0)
    throw new RuntimeError(
      `Cloudflare's checks that waited for apply found ${found.length} problem(s); nothing was written:\n` +
        `${found.map((f) => `  ${shownTemplate(f)}`).join("\n")}\nFix the file or the environment and run apply again.`,
    );
  return report.checked;
}

function goesToChecks(plan: Plan, desired: DesiredState, opts: ApplyOptions): boolean {
  if (plan.zones.some((z) => z.errors.length > 0)) return false;
  if (totalChanges(summariseZones(plan.zones)) === 0) return false;
  return opts.force === true || findSafetyViolations(plan, desired.safety.max_deletes).length === 0;
}

function checksHeldBack(plan: Plan, desired: DesiredState, opts: ApplyOptions): { told: () => Promise<number> } {
  const progress = opts.execution?.progress;
  const held: string[] = [];
  let telling = false;
  const checks = checkFirst(plan, desired, {
    ...opts,
    execution: {
      ...opts.execution,
      progress: progress && ((line: string) => (telling ? progress(line) : void held.push(line))),
    },
  });
  checks.catch(() => undefined);
  return {
    told: () => {
      telling = true;
      for (const line of held.splice(0)) progress?.(line);
      return checks;
    },
  };
}

/** Safety limits, Cloudflare's checks (unless made already: `checked`), then the writes. */
async function run(plan: Plan, desired: DesiredState, opts: ApplyOptions, checked?: number): Promise<ApplyReport> {
  assertSafe(plan, desired.safety.max_deletes, opts.force === true);
  const checks = checked ?? (await checkFirst(plan, desired, opts));
  await opts.beforeWrites?.(plan);
  const report = await executePlan(plan, {
    client: opts.client,
    secrets: desired.secrets,
    parallelism: opts.parallelism,
    ...opts.execution,
  });
  report.checked = checks;
  if (opts.throwOnFailure !== false) assertApplied(report);
  return report;
}

export interface PlanAndApplyOptions
  extends Omit<ApplyOptions, "expectDigest" | "file" | "select" | "env" | "expectDesired" | "expectDesiredName"> {
  confirm?: (plan: Plan, desired: DesiredState, digest: string) => void | Promise<void>;
}

export async function planAndApply(desired: DesiredState, opts: PlanAndApplyOptions): Promise<ApplyReport> {
  await opts.onDesired?.(desired);
  const plan = await planZones({
    client: opts.client,
    desired,
    parallelism: opts.parallelism,
    progress: opts.readProgress,
    onZoneDone: opts.onZoneDone,
  });
  // Before the question: a plan Cloudflare refuses is not put to anyone.
  const early = goesToChecks(plan, desired, opts) ? checksHeldBack(plan, desired, opts) : undefined;
  await preparePlanFile(plan, desired);
  const digest = planForFile(plan, desired).digest!;
  await opts.onPlan?.(plan, desired, digest);
  assertNoZoneErrors(plan);
  if (totalChanges(summariseZones(plan.zones)) === 0) return noChanges();
  assertSafe(plan, desired.safety.max_deletes, opts.force === true);
  const checked = await (early ? early.told() : checkFirst(plan, desired, opts));
  await opts.confirm?.(plan, desired, digest);
  if (planDigest(plan) !== sealOf(plan)?.digest) {
    throw new StalePlanError("the plan was changed while it was shown; nothing was written. Make a new plan.", [
      "edited",
    ]);
  }
  return run(plan, desired, opts, checked);
}
