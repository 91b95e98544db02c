// `zoneform evidence DIR`: the period `audit --evidence-dir DIR` kept, rendered for an assessor (PCI DSS 11.6.1 asks
// for the checks at least weekly, with each change found and how it was handled).
// Spec: docs/commands/evidence.md.
import { resolve } from "node:path";
import type { Command } from "commander";
import {
  evidencePeriod,
  periodHolds,
  renderEvidenceHtml,
  renderEvidenceJson,
  renderEvidenceMarkdown,
  renderEvidenceText,
  type Period,
} from "../../audit/index.js";
import { EXIT, UsageError } from "../../errors.js";
import { printable } from "../../safe-text.js";
import { refuseExisting, writeFileSafely } from "../../write-file.js";
import type { CommandContext } from "../command.js";
import { readEvidenceDir } from "../evidence-store.js";
import { outOption } from "../options.js";
import { type CommandTable, commandFromTable } from "../option-table.js";

const FORMATS: Record<string, (p: Period) => string> = {
  text: renderEvidenceText,
  markdown: renderEvidenceMarkdown,
  json: renderEvidenceJson,
  html: renderEvidenceHtml,
};

interface EvidenceFlags {
  since?: string;
  until?: string;
  format: string;
  out?: string;
  force?: boolean;
}

const EVIDENCE: CommandTable = {
  name: "evidence",
  arguments: [["<dir>", "the directory `audit -c FILE --evidence-dir DIR` keeps its runs in"]],
  description:
    "Render the period an evidence directory covers: each run and its result, each finding with when it " +
    "appeared and cleared, gaps of more than 7 days and changed records; exit 2 when the record does not hold.",
  options: [
    {
      flags: "--since <time>",
      description: "the period's start (an ISO 8601 date or instant): earlier runs are left out",
    },
    { flags: "--until <time>", description: "the period's end (default: every run since)" },
    { flags: "--format <format>", description: Object.keys(FORMATS).join(" | "), default: "text" },
    outOption("write the report to this file (refused if it exists, unless --force)"),
    { flags: "--force", description: "overwrite the --out file" },
  ],
};

export function register(program: Command, ctx: CommandContext): void {
  commandFromTable(program, EVIDENCE).action(async (dir: string, opts: EvidenceFlags) => {
    const { io } = ctx;
    const render = Object.hasOwn(FORMATS, opts.format) ? FORMATS[opts.format] : undefined;
    if (!render)
      throw new UsageError(`--format ${printable(opts.format)}: expected one of ${Object.keys(FORMATS).join(", ")}`);
    const outPath = opts.out === undefined ? undefined : resolve(io.cwd, opts.out);
    if (outPath) refuseExisting(outPath, { force: opts.force, label: `--out ${opts.out}` });
    const files = await readEvidenceDir(resolve(io.cwd, dir), dir);
    if (files.length === 0)
      throw new UsageError(
        `${dir}: no record of a run (zoneform-audit-….json): run audit -c FILE --evidence-dir ${dir}`,
      );
    const period = evidencePeriod(files, {
      ...(opts.since !== undefined ? { since: instant("--since", opts.since) } : {}),
      ...(opts.until !== undefined ? { until: instant("--until", opts.until, true) } : {}),
    });
    const text = render(period);
    if (outPath) await writeFileSafely(outPath, text, { force: opts.force, label: `--out ${opts.out}` });
    else io.stdout.write(text);
    if (!periodHolds(period)) ctx.setExit(EXIT.changes);
  });
}

function instant(flag: string, value: string, endOfDay = false): string {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const t = Date.parse(day ? `${value}T${endOfDay ? "23:59:59.999" : "00:00:00.000"}Z` : value);
  if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}/.test(value))
    throw new UsageError(
      `${flag} ${printable(value)}: expected an ISO 8601 date or instant (2026-01-01, 2026-01-01T00:00:00Z)`,
    );
  return new Date(t).toISOString();
}
