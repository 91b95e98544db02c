// `zoneform plan`: read the live zones and print the ordered calls that would make them match.
// Spec: docs/commands/plan.md.
import { resolve } from "node:path";
import type { Command } from "commander";
import { EXIT } from "../../errors.js";
import {
  assertChecked,
  checkWrites,
  writePlanFile,
  assertNoZoneErrors,
  describeViolation,
  findSafetyViolations,
} from "../../engine/index.js";
import { refuseExisting } from "../../write-file.js";
import { printable } from "../../safe-text.js";
import { preparePlanFile, summariseZones, totalChanges, digestLine } from "../../plan/index.js";
import { addClientOptions } from "../client-flags.js";
import { addCommonOptions, addConfigOption, outOption } from "../options.js";
import {
  addMaxBytesOption,
  digestOf,
  makePlan,
  parseFormat,
  planSucceeded,
  renderPlan,
  type PlanningOptions,
} from "../planning.js";
import type { CommandContext } from "../command.js";
import { addShardOption } from "../shard.js";
import { type CommandTable, commandFromTable } from "../option-table.js";

interface PlanOptions extends PlanningOptions {
  out?: string;
  force?: boolean;
  format?: string;
  detailedExitcode?: boolean;
  verify?: boolean;
}

const PLAN: CommandTable = {
  name: "plan",
  description: "Read the live zones and show the ordered API calls that would make them match the file.",
  options: [
    outOption("save the plan (JSON; secrets as ${env:NAME} references) for `zoneform apply <file>`"),
    { flags: "--force", description: "overwrite the --out file if it exists" },
    { flags: "--format <format>", description: "text | json | markdown", default: "text" },
    { flags: "--detailed-exitcode", description: "exit 2 when there are changes, 0 when there are none" },
    {
      flags: "--base <path>",
      description:
        "the configuration the change is reviewed against (the base branch's): what audit checks is shown as its diff",
    },
    {
      flags: "--verify",
      description:
        "have Cloudflare check the plan's ruleset writes (dry_run=true: validated, nothing written); a refusal exits 1",
    },
  ],
};

export function register(program: Command, ctx: CommandContext): void {
  const cmd = commandFromTable(program, PLAN);
  addMaxBytesOption(cmd);
  addConfigOption(cmd);
  addCommonOptions(cmd);
  addClientOptions(cmd);
  addShardOption(cmd);
  cmd.action((opts) => runPlan(opts, ctx));
}

async function runPlan(opts: PlanOptions, ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  const format = parseFormat(opts.format);
  const outPath = opts.out ? resolve(io.cwd, opts.out) : undefined;
  const outLabel = `--out ${opts.out}`;
  if (outPath) refuseExisting(outPath, { force: opts.force, label: outLabel });
  const { plan, desired, client } = await makePlan(opts, io);
  try {
    // The values bound in the digest and the file, derived at once rather than one by one.
    await preparePlanFile(plan, desired);
    io.stdout.write(renderPlan(plan, desired, format, io, opts));
    // JSON carries its digest inside.
    if (format !== "json" && planSucceeded(plan)) io.stdout.write(digestLine(digestOf(plan, desired), format));
    // Before the plan is saved: a plan Cloudflare refuses is not one to apply.
    if (opts.verify && planSucceeded(plan)) {
      const checks = await checkWrites(plan, {
        client,
        parallelism: opts.parallelism,
        progress: (l) => io.stderr.write(`${printable(l)}\n`),
      });
      if (checks.forbidden.length > 0) {
        io.stderr.write(
          `Warning: the token may not make ${checks.forbidden.length} of the ${checks.checked} ruleset write(s) ` +
            "(a read-only token?): Cloudflare refused to check them, so they are shown unchecked; apply with " +
            "this token would fail there:\n" +
            checks.forbidden.map((l) => `  ${printable(l)}\n`).join(""),
        );
      }
      if (checks.atApply > 0)
        io.stderr.write(
          `${checks.atApply} ruleset write(s) carry a secret: Cloudflare checks them at apply, not before ` +
            "the review.\n",
        );
      assertChecked(checks, { forbiddenRefuses: false, by: "plan" });
    }
    if (outPath) {
      await writePlanFile(outPath, plan, desired, { force: opts.force, label: outLabel });
      io.stderr.write(`Saved the plan to ${opts.out}; apply it with: zoneform apply ${opts.out}\n`);
    }
    for (const v of findSafetyViolations(plan, desired.safety.max_deletes)) {
      io.stderr.write(`Warning: ${describeViolation(v)}; apply will refuse without --force.\n`);
    }
    assertNoZoneErrors(plan);
    if (opts.detailedExitcode && totalChanges(summariseZones(plan.zones)) > 0) ctx.setExit(EXIT.changes);
  } finally {
    await client.close();
  }
}
