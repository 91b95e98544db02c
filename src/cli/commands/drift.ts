// `zoneform drift`: a plan for cron. A compact report; exit 2 when a zone differs from the file.
import type { Command } from "commander";
import { EXIT } from "../../errors.js";
import { renderDriftReport } from "../../plan/render/compact.js";
import { totalChanges } from "../../plan/summary.js";
import { addClientOptions } from "../client-options.js";
import { addCommonOptions, addConfigOption } from "../options.js";
import { assertNoZoneErrors, makePlan, type PlanningOptions } from "../planning.js";
import type { CommandContext } from "../program.js";
import { addShardOption } from "../shard.js";
import { planForDisplay } from "../../plan/secrets.js";

export function register(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command("drift")
    .description("Check whether the live zones still match the file (for cron): exit 0 no drift, 2 drift, 1 error, 3 invalid file.");
  addConfigOption(cmd);
  addCommonOptions(cmd);
  addClientOptions(cmd);
  addShardOption(cmd);
  cmd.action(async (opts: PlanningOptions) => {
    const { io } = ctx;
    const { plan, desired, client } = await makePlan(opts, io, undefined, "drift");
    try {
      io.stdout.write(renderDriftReport(planForDisplay(plan, desired)));
      assertNoZoneErrors(plan);
      if (totalChanges(plan.summary) > 0) ctx.setExit(EXIT.changes);
    } finally {
      await client.close();
    }
  });
}
