// The engine's apply: the one way a plan is written, for the library and the CLI alike. No plan is
// executed as it was given. `apply` verifies it first (verify.ts): its form and digest, that what it
// shows agrees with its operations, the values of its `${env:…}` references, that it was made from the
// configuration given (same-desired.ts), then it reads the live zones again and plans anew from the
// desired state the plan carries; the plan is applied only when the new one is the same (fingerprints,
// operations, everything shown), and what runs is the new one, within the safety limits.
// `planAndApply` runs only the plan it makes itself in the same call (the CLI's `apply` from a
// configuration, like Terraform's). Both have Cloudflare check the plan's ruleset writes first (dry-run.ts:
// `dry_run=true`, nothing persisted) and stop with nothing written when it refuses one; both execute through
// execute.ts; nothing else in the engine sends a planned write.
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

/** What the caller may watch or add to at each step; none of it can change what is written. */
export interface ApplyHooks {
  /** Reading progress: a line per zone (verbose), and zones read so far of how many. */
  readProgress?: (line: string) => void;
  onZoneDone?: (done: number, total: number) => void;
  /** The desired state is known, before any read (the CLI takes its zone locks here). */
  onDesired?: (desired: DesiredState) => void | Promise<void>;
  /** The plan that will run, with its digest, before the safety limits and the first write. */
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
  /**
   * The desired state the plan must have been made from (`apply PLAN -c CONFIG`: the configuration at
   * the merged commit), compared zone by zone and section by section before any read; `select` applies
   * to it too. Any difference is refused (StalePlanError, exit 1).
   */
  expectDesired?: DesiredState;
  /** How messages name `expectDesired` (default "the configuration given"). */
  expectDesiredName?: string;
  /** Keeps some of the plan's zones (`--zone`, `--shard`); default all. */
  select?: (desired: DesiredState) => DesiredState;
  /** Default true: a failed change throws ApplyError (exit 4) or, when nothing was written, exit 1. */
  throwOnFailure?: boolean;
}

/** A plan as verification sees it: its file form, the desired state it was made from, its digest. */
export interface OpenedPlan {
  plan: Plan;
  desired: DesiredState;
  digest: string;
}

function nameOf(opts: Pick<ApplyOptions, "file">): string {
  return opts.file !== undefined ? `the plan file ${opts.file}` : "the plan given to apply";
}

/**
 * The checks of a plan that need neither the API nor a write: a plan this engine made (plan.ts seals
 * it) must be unchanged since; any other is checked as a plan file is (form, recorded and expected
 * digest, the form of its bound values, what it shows against its operations, its desired state
 * loaded as a configuration, its references' values as bound). Resolves with the plan in file form,
 * the desired state to plan again, and the digest.
 */
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

/**
 * Verifies `given` and applies it: nothing is written unless the live zones, read again now, give
 * the same plan (else StalePlanError, exit 1), every zone could be planned, each zone's deletes
 * are within `safety.max_deletes` (else UnsafePlanError, exit 1, unless `force`), and Cloudflare takes
 * every ruleset write when it is checked first (dry-run.ts; else exit 1). What runs is the plan made now,
 * so an edited body, path or reference can never be sent.
 */
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

/**
 * Cloudflare's own check of every ruleset write of the plan (`dry_run=true`, the very bodies the writes carry),
 * before the first write: a refusal stops the run with nothing written. Resolves with the number of writes checked.
 */
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

/** Whether planAndApply will check `plan` with Cloudflare: it has changes, no zone errors and is safe (or forced). */
function goesToChecks(plan: Plan, desired: DesiredState, opts: ApplyOptions): boolean {
  if (plan.zones.some((z) => z.errors.length > 0)) return false;
  if (totalChanges(summariseZones(plan.zones)) === 0) return false;
  return opts.force === true || findSafetyViolations(plan, desired.safety.max_deletes).length === 0;
}

/**
 * Cloudflare's checks of `plan`, started now; their progress lines are held until `told` (after the plan has been
 * shown), which resolves as checkFirst does. A run that stops before then leaves their outcome unheard.
 */
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
  /**
   * Shown the plan (after `onPlan`) when it has changes, is safe and Cloudflare took its ruleset writes when
   * checked: resolve to go on, throw to stop with nothing written (the CLI's "Only 'yes' will be accepted").
   */
  confirm?: (plan: Plan, desired: DesiredState, digest: string) => void | Promise<void>;
}

/**
 * Plans `desired` against the live zones and applies that very plan, in one call (no window in
 * which another plan could be put in its place): `onPlan` shows it (zone errors are shown, then
 * refused), the safety limits apply, `confirm` may stop it. The plan must be unchanged when the
 * writes begin.
 */
export async function planAndApply(desired: DesiredState, opts: PlanAndApplyOptions): Promise<ApplyReport> {
  await opts.onDesired?.(desired);
  const plan = await planZones({
    client: opts.client,
    desired,
    parallelism: opts.parallelism,
    progress: opts.readProgress,
    onZoneDone: opts.onZoneDone,
  });
  // Before the question: a plan Cloudflare refuses is not put to anyone. The checks of a plan that will be put
  // to it start at once, in flight while its values are bound, its digest made and it is shown; what they say
  // is told after the plan.
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
