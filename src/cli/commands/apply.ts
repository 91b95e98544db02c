// `zoneform apply`: from the file (plan, show, confirm, execute) or from a saved plan (re-read, refuse
// if stale, execute). Progress on stderr; exit 4 with a report when it stops part-way.
import type { Command } from "commander";
import { RuntimeError } from "../../errors.js";
import { applyPlan, assertApplied } from "../../engine/apply.js";
import { assertPlanFresh, desiredFromPlan } from "../../engine/staleness.js";
import type { DesiredState } from "../../model/desired.js";
import type { Plan } from "../../model/plan.js";
import { readPlanFile } from "../../plan/plan-file.js";
import { assertSafe } from "../../plan/safety.js";
import { displayRedactor } from "../../plan/secrets.js";
import { summariseZones, totalChanges } from "../../plan/summary.js";
import { addClientOptions, clientFromOptions } from "../client-options.js";
import type { CliIO } from "../io.js";
import { addCommonOptions, addConfigOption } from "../options.js";
import { assertNoZoneErrors, makePlan, renderPlan, selectZones, type PlanningOptions } from "../planning.js";
import type { CommandContext } from "../program.js";
import { addShardOption } from "../shard.js";
import type { CloudflareClient } from "../../cloudflare/types.js";

interface ApplyOptions extends PlanningOptions {
  autoApprove?: boolean;
  force?: boolean;
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
    progress: (l) => io.stderr.write(`${l}\n`),
  });
  assertApplied(report);
  const s = summariseZones(plan.zones);
  io.stdout.write(`Apply complete! Resources: ${s.create} created, ${s.update} updated, ${s.replace} replaced, ${s.delete} deleted.\n`);
}

async function applySavedPlan(file: string, opts: ApplyOptions, io: CliIO): Promise<void> {
  const { plan: saved, secrets } = await readPlanFile(file, io.env);
  const desired: DesiredState = desiredFromPlan(saved, secrets);
  const wanted = selectZones(desired, opts.zone, opts.shard).zones.map((z) => z.zone_id);
  const plan: Plan = { ...saved, zones: saved.zones.filter((z) => wanted.includes(z.zone_id)) };
  const client = clientFromOptions(opts, io, displayRedactor(secrets));
  try {
    assertNoZoneErrors(plan);
    io.stdout.write(renderPlan(plan, desired, "text", io, opts));
    if (totalChanges(summariseZones(plan.zones)) === 0) return;
    assertSafe(plan, desired.safety.max_deletes, Boolean(opts.force));
    const zonesDesired = { ...desired, zones: desired.zones.filter((z) => wanted.includes(z.zone_id)) };
    await assertPlanFresh(plan, zonesDesired, client, opts.parallelism);
    await execute(plan, client, io, opts);
  } finally {
    await client.close();
  }
}

export function register(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command("apply")
    .argument("[plan-file]", "a plan saved with `zoneform plan --out`; without it, plan from the file first")
    .description("Make the live zones match the file (or a saved plan): exit 0 done, 1 error (nothing written), 4 stopped part-way.")
    .option("--auto-approve", "do not ask for confirmation (needed when stdin is not a terminal)")
    .option("--force", "apply even when a zone's deletes exceed safety.max_deletes");
  addConfigOption(cmd);
  addCommonOptions(cmd);
  addClientOptions(cmd);
  addShardOption(cmd);
  cmd.action(async (planFile: string | undefined, opts: ApplyOptions) => {
    const { io } = ctx;
    if (planFile) return applySavedPlan(planFile, opts, io);
    const { plan, desired, client } = await makePlan(opts, io);
    try {
      io.stdout.write(renderPlan(plan, desired, "text", io, opts));
      assertNoZoneErrors(plan);
      if (totalChanges(plan.summary) === 0) return;
      assertSafe(plan, desired.safety.max_deletes, Boolean(opts.force));
      await confirm(io, opts);
      await execute(plan, client, io, opts);
    } finally {
      await client.close();
    }
  });
}
