// `zoneform drift`: a plan for cron.
// Spec: docs/commands/drift.md.
import type { Command } from "commander";
import { fitFor } from "../width.js";
import { EXIT } from "../../errors.js";
import type { Plan } from "../../model/index.js";
import {
  renderDriftReport,
  renderPlanMarkdown,
  renderPlanText,
  planForDisplay,
  summariseZones,
  totalChanges,
} from "../../plan/index.js";
import { addClientOptions } from "../client-flags.js";
import { addCommonOptions, addConfigOption } from "../options.js";
import { assertNoZoneErrors } from "../../engine/index.js";
import {
  addMaxBytesOption,
  makePlan,
  markdownOptions,
  parseFormat,
  renderPlan,
  useColor,
  type PlanningOptions,
} from "../planning.js";
import type { CommandContext } from "../command.js";
import { addShardOption } from "../shard.js";
import { type CommandTable, commandFromTable } from "../option-table.js";

interface DriftOptions extends PlanningOptions {
  format?: string;
  detailedExitcode?: boolean;
}

function drifted(plan: Plan): Plan {
  const zones = plan.zones.filter((z) => z.changes.length > 0 || z.errors.length > 0);
  return { ...plan, zones, summary: summariseZones(zones) };
}

const DRIFT: CommandTable = {
  name: "drift",
  description:
    "Check whether the live zones still match the file (for cron): exit 0 no drift, 2 drift, 1 error, 3 " +
    "invalid file.",
  options: [
    { flags: "--format <format>", description: "text | json (the plan format) | markdown", default: "text" },
    {
      flags: "--detailed-exitcode",
      description: "accepted for symmetry with plan: drift always exits 2 when a zone differs",
    },
  ],
};

export function register(program: Command, ctx: CommandContext): void {
  const cmd = commandFromTable(program, DRIFT);
  addMaxBytesOption(cmd);
  addConfigOption(cmd);
  addCommonOptions(cmd);
  addClientOptions(cmd);
  addShardOption(cmd);
  cmd.action(async (opts: DriftOptions) => {
    const { io } = ctx;
    const format = parseFormat(opts.format);
    const { plan, desired, client } = await makePlan(opts, io, "drift");
    try {
      if (format === "json") io.stdout.write(renderPlan(plan, desired, "json", io, opts));
      else {
        const shown = planForDisplay(drifted(plan), desired);
        if (format === "markdown")
          io.stdout.write(renderPlanMarkdown(shown, markdownOptions(opts as { maxBytes?: string })));
        else {
          const text =
            (shown.zones.length > 0
              ? renderPlanText(shown, { color: useColor(io, opts), verbose: opts.verbose, errors: false })
              : "") + renderDriftReport(planForDisplay(plan, desired));
          io.stdout.write(fitFor(io, io.stdout, text, { long: "break" }));
        }
      }
      assertNoZoneErrors(plan);
      if (totalChanges(plan.summary) > 0) ctx.setExit(EXIT.changes);
    } finally {
      await client.close();
    }
  });
}
