// `zoneform show PLAN.json`: renders a saved plan as `plan` showed it (text, Markdown or its JSON), with its digest,
// without reading the live zones: what a reviewer reads in a pull request, or what an apply job prints before
// applying the reviewed plan.
// Spec: docs/commands/show.md.
import type { Command } from "commander";
import { fitFor } from "../width.js";
import type { Plan } from "../../model/index.js";
import { readPlanFile, checkSavedPlan } from "../../engine/index.js";
import { digestLine, renderPlanMarkdown, renderPlanText, toDocument } from "../../plan/index.js";
import { mapStrings } from "../../redact.js";
import { shownTemplate } from "../../template.js";
import { safeJson } from "../../safe-text.js";
import { addMaxBytesOption, markdownOptions, parseFormat, useColor } from "../planning.js";
import { addColorOption, addVerboseOption } from "../options.js";
import type { CommandContext } from "../command.js";
import { type CommandTable, commandFromTable } from "../option-table.js";

/** The saved plan as `plan` showed it: each `${env:NAME}` reference hidden as `(sensitive)`. */
export function planForShow(saved: Plan): Plan {
  return mapStrings({ ...saved, zones: saved.zones.map((z) => ({ ...z, desired: undefined })) }, shownTemplate) as Plan;
}

interface ShowOptions {
  format?: string;
  maxBytes?: string;
  verbose?: boolean;
  color?: boolean;
}

const SHOW: CommandTable = {
  name: "show",
  arguments: [["<plan-file>", "a plan saved with `zoneform plan --out`"]],
  description:
    "Render a saved plan as `plan` showed it, with its digest, without reading the zones: exit 0, 1 (the " +
    "file was changed after it was made: another digest, or it shows what its calls do not do), 3 (not a plan).",
  options: [{ flags: "--format <format>", description: "text | markdown | json", default: "text" }],
};

export function register(program: Command, ctx: CommandContext): void {
  const cmd = commandFromTable(program, SHOW);
  addMaxBytesOption(cmd);
  addVerboseOption(cmd);
  addColorOption(cmd);
  cmd.action(async (file: string, opts: ShowOptions) => {
    const { io } = ctx;
    const format = parseFormat(opts.format);
    const saved = await readPlanFile(file);
    const digest = checkSavedPlan(saved, `the plan file ${file}`);
    if (format === "json") {
      io.stdout.write(`${safeJson({ ...toDocument(saved), digest }, 2)}\n`);
      return;
    }
    const shown = planForShow(saved);
    if (format === "markdown")
      io.stdout.write(
        `${renderPlanMarkdown(shown, markdownOptions({ maxBytes: opts.maxBytes, planFile: file }))}` +
          `${digestLine(digest, "markdown")}`,
      );
    // The digest line is kept whole (84 columns), so that it copies as one.
    else
      io.stdout.write(
        fitFor(io, io.stdout, renderPlanText(shown, { color: useColor(io, opts), verbose: opts.verbose }), {
          long: "break",
        }) + digestLine(digest, "text"),
      );
  });
}
