// `zoneform apply`: a thin layer over the engine (engine/apply.ts): from the file, planAndApply (plan, show,
// confirm, execute), or from a saved plan, apply (verify: refuse if edited, not made from the configuration given
// with -c, stale or unsafe; re-read; execute).
// Spec: docs/commands/apply.md.
import type { Command } from "commander";
import { loadConfig } from "../../config/index.js";
import { RuntimeError, UsageError, formatProblem } from "../../errors.js";
import {
  apply as applyVerified,
  openPlan,
  planAndApply,
  type ApplyHooks,
  type ApplyReport,
  lockZones,
  readPlanFile,
} from "../../engine/index.js";
import type { DesiredState } from "../../sections/index.js";
import type { Plan } from "../../model/index.js";
import { digestLine, displayRedactor, summariseZones, totalChanges } from "../../plan/index.js";
import { printable } from "../../safe-text.js";
import { addClientOptions } from "../client-flags.js";
import { apiUrlFrom, clientFromOptions } from "../client-options.js";
import { hideVariables, type CliIO } from "../io.js";
import { tokenVariables } from "../account-tokens.js";
import {
  addApproveOptions,
  addCommonOptions,
  addConfigOption,
  approvedInAdvance,
  type ApproveOptions,
} from "../options.js";
import { loadDesired, readingHooks, renderPlan, selectZones, type PlanningOptions } from "../planning.js";
import { progressFor, type Progress } from "../progress.js";
import type { CommandContext } from "../command.js";
import { addShardOption } from "../shard.js";
import { guardSignals, signalExit, withSignalCode, type SignalGuard } from "../signals.js";
import type { CloudflareClient } from "../../cloudflare/index.js";
import { type CommandTable, commandFromTable } from "../option-table.js";

interface ApplyOptions extends PlanningOptions, ApproveOptions {
  force?: boolean;
  expectDigest?: string;
}

async function confirm(io: CliIO, opts: ApplyOptions, digest: string): Promise<void> {
  if (approvedInAdvance(opts)) return;
  if (!io.prompt) {
    throw new RuntimeError(
      "apply needs confirmation, but stdin is not a terminal: review the plan and pass --auto-approve (or --yes).",
    );
  }
  io.stdout.write(digestLine(digest, "text"));
  const answer = await io.prompt("Do you want to make these changes? Only 'yes' will be accepted: ");
  if (answer.trim() !== "yes") throw new RuntimeError("Apply cancelled; nothing was changed.");
}

function writing(client: CloudflareClient, io: CliIO, progress: Progress, guard: SignalGuard) {
  let finished = 0;
  let total = 0;
  let executed: Plan | undefined;
  const report: ApplyReport = { done: [], failed: [], notDone: [], uncertain: [] };
  const hooks: Pick<ApplyHooks, "beforeWrites" | "execution"> = {
    beforeWrites: (plan) => {
      executed = plan;
      total = plan.zones.reduce((n, z) => n + z.changes.length, 0);
      guard.writesBegin(client, () => ({ made: report.done.length, failed: report.failed.length, total }), progress);
      progress.begin("apply", "changes made", total);
    },
    execution: {
      progress: (l) => progress.log(printable(l)),
      shouldStop: () => guard.stopping(),
      report,
      onChange: (_what, state) => {
        if (state === "end") progress.update(++finished);
      },
    },
  };
  return {
    hooks,
    complete(): void {
      if (!executed) return;
      const s = summariseZones(executed.zones);
      const counts = `${s.create} created, ${s.update} updated, ${s.replace} replaced, ${s.delete} deleted`;
      const signal = guard.signal();
      if (signal === undefined) {
        io.stdout.write(`Apply complete! Resources: ${counts}.\n`);
        return;
      }
      io.stderr.write(
        `${signal} came after the last change had been sent: every change was made, ${report.done.length} of ` +
          `${total} (${counts}), and nothing was left undone; exit ${signalExit(signal)}, as after any ${signal}.\n`,
      );
    },
    end(): void {
      progress.end();
    },
  };
}

async function configBeside(opts: ApplyOptions, io: CliIO): Promise<DesiredState | undefined> {
  if (opts.config === undefined) return undefined;
  const { desired, warnings } = await loadConfig(opts.config, { env: io.env, cwd: io.cwd });
  hideVariables(io, [...desired.secrets.names, ...tokenVariables(desired)]);
  for (const w of warnings) io.stderr.write(`${formatProblem(w)}\n`);
  return desired;
}

async function applySavedPlan(file: string, opts: ApplyOptions, io: CliIO, guard: SignalGuard): Promise<void> {
  const saved = await readPlanFile(file);
  const verification = { file, env: io.env, expectDigest: opts.expectDigest };
  const opened = await openPlan(saved, verification);
  hideVariables(io, [...opened.desired.secrets.names, ...tokenVariables(opened.desired)]);
  const expectDesired = await configBeside(opts, io);
  const select = (d: DesiredState) => selectZones(d, opts.zone, opts.shard);
  const desired = select(opened.desired);
  const release = await lockZones(lockNames(desired), {
    env: io.env,
    command: `apply ${file}`,
    api: apiUrlFrom(opts, io, true),
  });
  const progress = progressFor(io, opts);
  const client = clientFromOptions(opts, io, displayRedactor(desired), progress, desired);
  const w = writing(client, io, progress, guard);
  try {
    await applyVerified(saved, {
      ...verification,
      ...(expectDesired ? { expectDesired, expectDesiredName: `the configuration ${opts.config}` } : {}),
      client,
      parallelism: opts.parallelism,
      force: Boolean(opts.force),
      select,
      ...readingHooks(opts, progress),
      onPlan: (plan, d, digest) => {
        progress.end();
        io.stdout.write(renderPlan(plan, d, "text", io, opts));
        if (totalChanges(summariseZones(plan.zones)) > 0) io.stdout.write(`Applying plan ${digest}\n`);
      },
      ...w.hooks,
    });
    w.complete();
  } finally {
    w.end();
    await client.close();
    await release();
  }
}

const APPLY: CommandTable = {
  name: "apply",
  arguments: [
    [
      "[plan-file]",
      "a plan saved with `zoneform plan --out`; without it, plan from the file first. With -c too, the plan must " +
        "have been made from that configuration",
    ],
  ],
  description:
    "Make the live zones match the file (or a saved plan): exit 0 done, 1 error (nothing written), 4 " +
    "stopped part-way.",
  options: [
    { flags: "--force", description: "apply even when a zone's deletes exceed safety.max_deletes" },
    {
      flags: "--expect-digest <sha256>",
      description:
        "with a saved plan: refuse it unless its digest is this one (the digest `plan` printed for the reviewed plan)",
    },
  ],
};

export function register(program: Command, ctx: CommandContext): void {
  const cmd = commandFromTable(program, APPLY);
  addApproveOptions(cmd);
  addConfigOption(cmd);
  addCommonOptions(cmd);
  addClientOptions(cmd);
  addShardOption(cmd);
  cmd.action(async (planFile: string | undefined, opts: ApplyOptions) => {
    const { io } = ctx;
    if (opts.expectDigest !== undefined && !/^sha256:[0-9a-f]{64}$/.test(opts.expectDigest)) {
      throw new UsageError(
        `--expect-digest ${opts.expectDigest}: expected sha256: and 64 hex characters, as \`zoneform plan\` prints it`,
      );
    }
    if (opts.expectDigest !== undefined && !planFile)
      throw new UsageError("--expect-digest goes with a saved plan: zoneform apply PLAN.json --expect-digest …");
    const guard = guardSignals(io);
    try {
      await (planFile ? applySavedPlan(planFile, opts, io, guard) : applyFromFile(opts, io, guard));
      // A signal once every change had been sent: all were made (the report said so), and the run still ends with the
      // signal's code, which a shell under `set -e` or a CI runner takes for a stopped run.
      const signal = guard.signal();
      if (signal !== undefined) ctx.setExit(signalExit(signal));
    } catch (err) {
      // A change the signal cut short (a replace whose delete was not sent) fails it: the signal's code still.
      throw withSignalCode(err, guard.signal());
    } finally {
      guard.end();
    }
  });
}

async function applyFromFile(opts: ApplyOptions, io: CliIO, guard: SignalGuard): Promise<void> {
  const desired = await loadDesired(opts, io);
  const release = await lockZones(lockNames(desired), {
    env: io.env,
    command: "apply",
    api: apiUrlFrom(opts, io, true),
  });
  const progress = progressFor(io, opts);
  let client: CloudflareClient | undefined;
  try {
    client = clientFromOptions(opts, io, displayRedactor(desired), progress, desired);
    const w = writing(client, io, progress, guard);
    try {
      await planAndApply(desired, {
        client,
        parallelism: opts.parallelism,
        force: Boolean(opts.force),
        ...readingHooks(opts, progress),
        onPlan: (plan, d) => {
          progress.end();
          io.stdout.write(renderPlan(plan, d, "text", io, opts));
        },
        confirm: async (_plan, _d, digest) => {
          await confirm(io, opts, digest);
          io.stdout.write(`Applying plan ${digest}\n`);
        },
        ...w.hooks,
      });
      w.complete();
    } finally {
      w.end();
    }
  } finally {
    await client?.close();
    await release();
  }
}

function lockNames(desired: DesiredState): string[] {
  return [...desired.zones.map((z) => z.zone_id), ...(desired.accounts ?? []).map((a) => `account-${a.account_id}`)];
}
