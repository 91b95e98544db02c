// `zoneform apply`: a thin layer over the engine (engine/apply.ts): from the file, planAndApply (plan,
// show, confirm, execute), or from a saved plan, apply (verify: re-read, refuse if edited, stale or
// unsafe; execute). Here: locks, prompts, signals, progress and output. Exit 4 with a report when it
// stops part-way.
import type { Command } from "commander";
import { EXIT, RunStoppedError, RuntimeError, UsageError } from "../../errors.js";
import { apply as applyVerified, openPlan, planAndApply, type ApplyHooks } from "../../engine/apply.js";
import type { ApplyReport } from "../../engine/execute.js";
import { lockZones } from "../../engine/lock.js";
import { readPlanFile } from "../../engine/plan-store.js";
import type { DesiredState } from "../../sections/index.js";
import type { Plan } from "../../model/plan.js";
import { displayRedactor } from "../../plan/secrets.js";
import { summariseZones, totalChanges } from "../../plan/summary.js";
import { printable } from "../../safe-text.js";
import { addClientOptions, apiUrlFrom, clientFromOptions } from "../client-options.js";
import type { CliIO } from "../io.js";
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
import type { CloudflareClient } from "../../cloudflare/types.js";

interface ApplyOptions extends PlanningOptions, ApproveOptions {
  force?: boolean;
  expectDigest?: string;
}

async function confirm(io: CliIO, opts: ApplyOptions): Promise<void> {
  if (approvedInAdvance(opts)) return;
  if (!io.prompt) {
    throw new RuntimeError(
      "apply needs confirmation, but stdin is not a terminal: review the plan and pass --auto-approve (or --yes).",
    );
  }
  const answer = await io.prompt("Do you want to make these changes? Only 'yes' will be accepted: ");
  if (answer.trim() !== "yes") throw new RuntimeError("Apply cancelled; nothing was changed.");
}

/** The exit code after a signal: 128 + its number (README "Exit codes"). */
function signalExit(signal: NodeJS.Signals): number {
  return signal === "SIGTERM" ? EXIT.sigterm : EXIT.sigint;
}

/**
 * Before the first write (reading, planning, asking), an interrupt stops at once: nothing was written.
 * `execute` installs its own handling once writes begin.
 */
function stopAtOnceUntilWrites(io: CliIO): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    io.stderr.write(
      `\n${signal === "SIGINT" ? "Interrupted" : `Stopped by ${signal}`} before any change was made; ` +
        `nothing was written.\n`,
    );
    process.exit(signalExit(signal));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}

/**
 * How the plan's calls run (the engine's hooks): the first SIGINT (Ctrl+C) or SIGTERM stops the
 * client: no request is sent after it, not even one already waiting for a slot, the rate limit or a
 * backoff; the writes already on the wire are let finish (each within --timeout) and reported one by
 * one as they land, fail or stay unknown; then the report says what was done, failed and not
 * attempted, exit 130 (SIGINT) or 143 (SIGTERM). A second signal exits at once with the same
 * accounting, naming the writes still on the wire. `end` undoes it all; `executed` is the plan run.
 */
function writing(client: CloudflareClient, io: CliIO, progress: Progress, writesBegin: () => void) {
  let finished = 0;
  let stopping = false;
  let total = 0;
  let executed: Plan | undefined;
  const report: ApplyReport = { done: [], failed: [], notDone: [], uncertain: [] };
  const writesOnTheWire = () => (client.onTheWire?.() ?? []).filter((r) => r.method !== "GET");
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signalExit(signal);
    if (!stopping) {
      stopping = true;
      const sent = writesOnTheWire();
      client.stop?.(
        new RunStoppedError(signal === "SIGINT" ? "interrupted (SIGINT)" : `stopped by ${signal}`, code, "signal"),
      );
      progress.clear();
      io.stderr.write(
        `\n${signal === "SIGINT" ? "Interrupt (SIGINT)" : signal} received: sending nothing more; waiting ` +
          `for the ${sent.length} write(s) already sent to be answered (each within --timeout). Press Ctrl+C ` +
          `again to stop at once.\n`,
      );
      for (const r of sent) {
        void r.settled.then((o) =>
          io.stderr.write(`  ${o.result.padEnd(8)} ${printable(`${r.method} ${r.path}`)} (${o.detail})\n`),
        );
      }
      return;
    }
    const pending = writesOnTheWire();
    progress.end();
    const made = report.done.length;
    const rest = total - made - report.failed.length;
    io.stderr.write(
      `Stopped at once by a second signal: ${made} change(s) made, ${report.failed.length} failed, ${rest} ` +
        `not made; nothing was sent after the first signal` +
        (pending.length > 0
          ? `, and ${pending.length} write(s) sent before it were still unanswered: they may or may not ` +
            `have landed:\n${pending.map((r) => `  unknown  ${printable(`${r.method} ${r.path}`)}\n`).join("")}`
          : "; no write was unanswered.\n") +
        "Run `zoneform plan` to see the live state.\n",
    );
    process.exit(code);
  };
  const hooks: Pick<ApplyHooks, "beforeWrites" | "execution"> = {
    beforeWrites: (plan) => {
      executed = plan;
      total = plan.zones.reduce((n, z) => n + z.changes.length, 0);
      writesBegin();
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      progress.begin("apply", "changes made", total);
    },
    execution: {
      progress: (l) => progress.log(printable(l)),
      shouldStop: () => stopping,
      report,
      onChange: (_what, state) => {
        if (state === "end") progress.update(++finished);
      },
    },
  };
  return {
    hooks,
    /** Once the engine returned: the summary line when changes were made. */
    complete(): void {
      if (!executed) return;
      const s = summariseZones(executed.zones);
      io.stdout.write(
        `Apply complete! Resources: ${s.create} created, ${s.update} updated, ${s.replace} replaced, ` +
          `${s.delete} deleted.\n`,
      );
    },
    end(): void {
      progress.end();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/**
 * A saved plan, applied by the engine (engine/apply.ts): its desired state is planned again against
 * the live zones, and only if the result is the saved plan (same fingerprints, same operations) is it
 * applied; what runs is the new plan. Its form, digest and references are checked first here too, to
 * lock the zones it selects and to redact its values in whatever is shown.
 */
async function applySavedPlan(file: string, opts: ApplyOptions, io: CliIO, writesBegin: () => void): Promise<void> {
  const saved = await readPlanFile(file);
  const verification = { file, env: io.env, expectDigest: opts.expectDigest };
  const opened = await openPlan(saved, verification);
  for (const s of opened.desired.secrets) io.secrets?.add(s.value);
  const select = (d: DesiredState) => selectZones(d, opts.zone, opts.shard);
  const desired = select(opened.desired);
  const release = await lockZones(
    desired.zones.map((z) => z.zone_id),
    { env: io.env, command: `apply ${file}`, api: apiUrlFrom(opts, io) },
  );
  const progress = progressFor(io, opts);
  const client = clientFromOptions(opts, io, displayRedactor(desired), progress);
  const w = writing(client, io, progress, writesBegin);
  try {
    await applyVerified(saved, {
      ...verification,
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

export function register(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command("apply")
    .argument("[plan-file]", "a plan saved with `zoneform plan --out`; without it, plan from the file first")
    .description(
      "Make the live zones match the file (or a saved plan): exit 0 done, 1 error (nothing written), 4 " +
        "stopped part-way.",
    )
    .option("--force", "apply even when a zone's deletes exceed safety.max_deletes")
    .option(
      "--expect-digest <sha256>",
      "with a saved plan: refuse it unless its digest is this one (the digest `plan` printed for the reviewed plan)",
    );
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
    const reading = stopAtOnceUntilWrites(io);
    try {
      await (planFile ? applySavedPlan(planFile, opts, io, reading) : applyFromFile(opts, io, reading));
    } finally {
      reading();
    }
  });
}

/** Plans from the configuration, shows the plan, asks, and applies that plan (the engine's planAndApply). */
async function applyFromFile(opts: ApplyOptions, io: CliIO, writesBegin: () => void): Promise<void> {
  const desired = await loadDesired(opts, io);
  const release = await lockZones(
    desired.zones.map((z) => z.zone_id),
    { env: io.env, command: "apply", api: apiUrlFrom(opts, io) },
  );
  const progress = progressFor(io, opts);
  let client: CloudflareClient | undefined;
  try {
    client = clientFromOptions(opts, io, displayRedactor(desired), progress);
    const w = writing(client, io, progress, writesBegin);
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
          await confirm(io, opts);
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
