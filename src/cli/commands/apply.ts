// `zoneform apply`: from the file (plan, show, confirm, execute) or from a saved plan (re-read, refuse
// if stale, execute). Progress on stderr; exit 4 with a report when it stops part-way.
import type { Command } from "commander";
import { RuntimeError, UsageError } from "../../errors.js";
import { applyPlan, assertApplied } from "../../engine/apply.js";
import { reconcile } from "../../engine/reconcile.js";
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
import { addCommonOptions, addConfigOption } from "../options.js";
import { assertNoZoneErrors, digestOf, makePlan, renderPlan, selectZones, type PlanningOptions } from "../planning.js";
import type { CommandContext } from "../program.js";
import { addShardOption } from "../shard.js";
import type { CloudflareClient } from "../../cloudflare/types.js";

interface ApplyOptions extends PlanningOptions {
  autoApprove?: boolean;
  force?: boolean;
  expectDigest?: string;
}

async function confirm(io: CliIO, opts: ApplyOptions): Promise<void> {
  if (opts.autoApprove) return;
  if (!io.prompt) {
    throw new RuntimeError("apply needs confirmation, but stdin is not a terminal: review the plan and pass --auto-approve.");
  }
  const answer = await io.prompt("Do you want to make these changes? Only 'yes' will be accepted: ");
  if (answer.trim() !== "yes") throw new RuntimeError("Apply cancelled; nothing was changed.");
}

async function execute(plan: Plan, client: CloudflareClient, io: CliIO, opts: ApplyOptions): Promise<void> {
  const report = await applyPlan(plan, {
    client,
    parallelism: opts.parallelism,
    progress: (l) => io.stderr.write(`${printable(l)}\n`),
  });
  assertApplied(report);
  const s = summariseZones(plan.zones);
  io.stdout.write(`Apply complete! Resources: ${s.create} created, ${s.update} updated, ${s.replace} replaced, ${s.delete} deleted.\n`);
}

/**
 * A saved plan: its desired state is planned again against the live zones, and only if the result is
 * the saved plan (same fingerprints, same operations) is it applied; what runs is the new plan.
 */
async function applySavedPlan(file: string, opts: ApplyOptions, io: CliIO): Promise<void> {
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
  const client = clientFromOptions(opts, io, displayRedactor(desired));
  try {
    if (totalChanges(summariseZones(savedSelected.zones)) === 0) {
      io.stdout.write(renderPlan(savedSelected, desired, "text", io, opts));
      return;
    }
    const fresh = await reconcile({ client, desired, parallelism: opts.parallelism });
    assertSamePlan(planForFile(savedSelected, desired), planForFile(fresh, desired));
    assertNoZoneErrors(fresh);
    io.stdout.write(renderPlan(fresh, desired, "text", io, opts));
    io.stdout.write(`Applying plan ${digest}\n`);
    assertSafe(fresh, desired.safety.max_deletes, Boolean(opts.force));
    await execute(fresh, client, io, opts);
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
    .option("--auto-approve", "do not ask for confirmation (needed when stdin is not a terminal)")
    .option("--force", "apply even when a zone's deletes exceed safety.max_deletes")
    .option("--expect-digest <sha256>", "with a saved plan: refuse it unless its digest is this one (the digest `plan` printed for the reviewed plan)");
  addConfigOption(cmd);
  addCommonOptions(cmd);
  addClientOptions(cmd);
  addShardOption(cmd);
  cmd.action(async (planFile: string | undefined, opts: ApplyOptions) => {
    const { io } = ctx;
    if (opts.expectDigest !== undefined && !/^sha256:[0-9a-f]{64}$/.test(opts.expectDigest)) {
      throw new UsageError(`--expect-digest ${opts.expectDigest}: expected sha256: and 64 hex characters, as \`zoneform plan\` prints it`);
    }
    if (planFile) return applySavedPlan(planFile, opts, io);
    if (opts.expectDigest !== undefined) throw new UsageError("--expect-digest goes with a saved plan: zoneform apply PLAN.json --expect-digest …");
    let release: (() => Promise<void>) | undefined;
    const planned = await makePlan(opts, io, async (d) => {
      release = await lockZones(d.zones.map((z) => z.zone_id), { env: io.env, command: "apply", api: apiUrlFrom(opts, io) });
    }).catch(async (err: unknown) => {
      await release?.();
      throw err;
    });
    const { plan, desired, client } = planned;
    try {
      io.stdout.write(renderPlan(plan, desired, "text", io, opts));
      assertNoZoneErrors(plan);
      if (totalChanges(plan.summary) === 0) return;
      assertSafe(plan, desired.safety.max_deletes, Boolean(opts.force));
      await confirm(io, opts);
      io.stdout.write(`Applying plan ${digestOf(plan, desired)}\n`);
      await execute(plan, client, io, opts);
    } finally {
      await client.close();
      await release?.();
    }
  });
}
