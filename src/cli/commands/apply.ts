// `zoneform apply`: from the file (plan, show, confirm, execute) or from a saved plan (re-read, refuse
// if stale, execute). Progress on stderr; exit 4 with a report when it stops part-way.
import type { Command } from "commander";
import { EXIT, RunStoppedError, RuntimeError, UsageError } from "../../errors.js";
import { applyPlan, assertApplied, type ApplyReport } from "../../engine/apply.js";
import { lockZones } from "../../engine/lock.js";
import { assertSamePlan, desiredFromPlan } from "../../engine/saved-plan.js";
import type { Plan } from "../../model/plan.js";
import { planDigest } from "../../plan/digest.js";
import { readPlanFile } from "../../plan/plan-file.js";
import { assertSafe } from "../../plan/safety.js";
import { displayRedactor, planForFile } from "../../plan/secrets.js";
import { summariseZones, totalChanges } from "../../plan/summary.js";
import { printable } from "../../safe-text.js";
import { addClientOptions, apiUrlFrom, clientFromOptions } from "../client-options.js";
import type { CliIO } from "../io.js";
import { addApproveOptions, addCommonOptions, addConfigOption, approvedInAdvance, type ApproveOptions } from "../options.js";
import { assertNoZoneErrors, digestOf, makePlan, readZones, renderPlan, selectZones, type PlanningOptions } from "../planning.js";
import { progressFor, type Progress } from "../progress.js";
import type { CommandContext } from "../program.js";
import { addShardOption } from "../shard.js";
import type { CloudflareClient } from "../../cloudflare/types.js";

interface ApplyOptions extends PlanningOptions, ApproveOptions {
  force?: boolean;
  expectDigest?: string;
}

async function confirm(io: CliIO, opts: ApplyOptions): Promise<void> {
  if (approvedInAdvance(opts)) return;
  if (!io.prompt) {
    throw new RuntimeError("apply needs confirmation, but stdin is not a terminal: review the plan and pass --auto-approve (or --yes).");
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
    io.stderr.write(`\n${signal === "SIGINT" ? "Interrupted" : `Stopped by ${signal}`} before any change was made; nothing was written.\n`);
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
 * Runs the plan's calls. The first SIGINT (Ctrl+C) or SIGTERM stops the client: no request is sent
 * after it, not even one already waiting for a slot, the rate limit or a backoff; the writes already
 * on the wire are let finish (each within --timeout) and reported one by one as they land, fail or
 * stay unknown; then the report says what was done, failed and not attempted, exit 130 (SIGINT) or
 * 143 (SIGTERM). A second signal exits at once with the same accounting, naming the writes still
 * on the wire.
 */
async function execute(plan: Plan, client: CloudflareClient, io: CliIO, opts: ApplyOptions, progress: Progress): Promise<void> {
  let finished = 0;
  let stopping = false;
  const report: ApplyReport = { done: [], failed: [], notDone: [], uncertain: [] };
  const total = plan.zones.reduce((n, z) => n + z.changes.length, 0);
  const writesOnTheWire = () => (client.onTheWire?.() ?? []).filter((r) => r.method !== "GET");
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signalExit(signal);
    if (!stopping) {
      stopping = true;
      const sent = writesOnTheWire();
      client.stop?.(new RunStoppedError(signal === "SIGINT" ? "interrupted (SIGINT)" : `stopped by ${signal}`, code, "signal"));
      progress.clear();
      io.stderr.write(
        `\n${signal === "SIGINT" ? "Interrupt (SIGINT)" : signal} received: sending nothing more; waiting for the ${sent.length} write(s) already sent to be answered (each within --timeout). Press Ctrl+C again to stop at once.\n`,
      );
      for (const r of sent) {
        void r.settled.then((o) => io.stderr.write(`  ${o.result.padEnd(8)} ${printable(`${r.method} ${r.path}`)} (${o.detail})\n`));
      }
      return;
    }
    const pending = writesOnTheWire();
    progress.end();
    const made = report.done.length;
    const rest = total - made - report.failed.length;
    io.stderr.write(
      `Stopped at once by a second signal: ${made} change(s) made, ${report.failed.length} failed, ${rest} not made; nothing was sent after the first signal` +
        (pending.length > 0
          ? `, and ${pending.length} write(s) sent before it were still unanswered: they may or may not have landed:\n${pending.map((r) => `  unknown  ${printable(`${r.method} ${r.path}`)}\n`).join("")}`
          : "; no write was unanswered.\n") +
        "Run `zoneform plan` to see the live state.\n",
    );
    process.exit(code);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  progress.begin("apply", "changes made", total);
  try {
    await applyPlan(plan, {
      client,
      parallelism: opts.parallelism,
      progress: (l) => progress.log(printable(l)),
      shouldStop: () => stopping,
      report,
      onChange: (_what, state) => {
        if (state === "end") progress.update(++finished);
      },
    });
    assertApplied(report);
  } finally {
    progress.end();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const s = summariseZones(plan.zones);
  io.stdout.write(`Apply complete! Resources: ${s.create} created, ${s.update} updated, ${s.replace} replaced, ${s.delete} deleted.\n`);
}

/**
 * A saved plan: its desired state is planned again against the live zones, and only if the result is
 * the saved plan (same fingerprints, same operations) is it applied; what runs is the new plan.
 */
async function applySavedPlan(file: string, opts: ApplyOptions, io: CliIO, writesBegin: () => void): Promise<void> {
  const saved = await readPlanFile(file);
  const digest = planDigest(saved);
  if (saved.digest !== undefined && saved.digest !== digest) {
    throw new RuntimeError(`the plan file ${file} was changed after it was made: its content hashes to ${digest}, not to the ${saved.digest} it records. Nothing was written; make a new plan.`);
  }
  if (opts.expectDigest !== undefined && opts.expectDigest !== digest) {
    throw new RuntimeError(`the plan file ${file} is ${digest}, not the reviewed ${opts.expectDigest}; nothing was written.`);
  }
  const all = desiredFromPlan(saved, file, io.env);
  for (const s of all.secrets) io.secrets?.add(s.value);
  const desired = selectZones(all, opts.zone, opts.shard);
  const wanted = new Set(desired.zones.map((z) => z.zone_id));
  const release = await lockZones([...wanted], { env: io.env, command: `apply ${file}`, api: apiUrlFrom(opts, io) });
  const savedSelected: Plan = { ...saved, zones: saved.zones.filter((z) => wanted.has(z.zone_id)) };
  const progress = progressFor(io, opts);
  const client = clientFromOptions(opts, io, displayRedactor(desired), progress);
  try {
    if (totalChanges(summariseZones(savedSelected.zones)) === 0) {
      io.stdout.write(renderPlan(savedSelected, desired, "text", io, opts));
      return;
    }
    const fresh = await readZones(client, desired, opts, progress);
    assertSamePlan(planForFile(savedSelected, desired), planForFile(fresh, desired));
    assertNoZoneErrors(fresh);
    io.stdout.write(renderPlan(fresh, desired, "text", io, opts));
    io.stdout.write(`Applying plan ${digest}\n`);
    assertSafe(fresh, desired.safety.max_deletes, Boolean(opts.force));
    writesBegin();
    await execute(fresh, client, io, opts, progress);
  } finally {
    await client.close();
    await release();
  }
}

export function register(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command("apply")
    .argument("[plan-file]", "a plan saved with `zoneform plan --out`; without it, plan from the file first")
    .description("Make the live zones match the file (or a saved plan): exit 0 done, 1 error (nothing written), 4 stopped part-way.")
    .option("--force", "apply even when a zone's deletes exceed safety.max_deletes")
    .option("--expect-digest <sha256>", "with a saved plan: refuse it unless its digest is this one (the digest `plan` printed for the reviewed plan)");
  addApproveOptions(cmd);
  addConfigOption(cmd);
  addCommonOptions(cmd);
  addClientOptions(cmd);
  addShardOption(cmd);
  cmd.action(async (planFile: string | undefined, opts: ApplyOptions) => {
    const { io } = ctx;
    if (opts.expectDigest !== undefined && !/^sha256:[0-9a-f]{64}$/.test(opts.expectDigest)) {
      throw new UsageError(`--expect-digest ${opts.expectDigest}: expected sha256: and 64 hex characters, as \`zoneform plan\` prints it`);
    }
    if (opts.expectDigest !== undefined && !planFile) throw new UsageError("--expect-digest goes with a saved plan: zoneform apply PLAN.json --expect-digest …");
    const reading = stopAtOnceUntilWrites(io);
    try {
      await (planFile ? applySavedPlan(planFile, opts, io, reading) : applyFromFile(opts, io, reading));
    } finally {
      reading();
    }
  });
}

/** Plans from the configuration, shows the plan, asks, and applies it. */
async function applyFromFile(opts: ApplyOptions, io: CliIO, writesBegin: () => void): Promise<void> {
  let release: (() => Promise<void>) | undefined;
  const planned = await makePlan(opts, io, async (d) => {
    release = await lockZones(d.zones.map((z) => z.zone_id), { env: io.env, command: "apply", api: apiUrlFrom(opts, io) });
  }).catch(async (err: unknown) => {
    await release?.();
    throw err;
  });
  const { plan, desired, client, progress } = planned;
  try {
    io.stdout.write(renderPlan(plan, desired, "text", io, opts));
    assertNoZoneErrors(plan);
    if (totalChanges(plan.summary) === 0) return;
    assertSafe(plan, desired.safety.max_deletes, Boolean(opts.force));
    await confirm(io, opts);
    io.stdout.write(`Applying plan ${digestOf(plan, desired)}\n`);
    writesBegin();
    await execute(plan, client, io, opts, progress);
  } finally {
    await client.close();
    await release?.();
  }
}
