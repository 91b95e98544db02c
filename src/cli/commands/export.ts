// `zoneform export`: the live zone as a zoneform file that plans with no changes.
// Spec: docs/commands/export.md.
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { checkConfigSources } from "../../config/index.js";
import { EXIT, UsageError, formatProblem } from "../../errors.js";
import { EXPORT_SECTIONS, exportSectionNamed, exportZones, type ExportSection } from "../../export/index.js";
import { printable } from "../../safe-text.js";
import { refuseExisting, writeFileSafely } from "../../write-file.js";
import { addReadCommandOptions, clientFromOptions, type ClientFlagValues } from "../client-options.js";
import { outOption } from "../options.js";
import { cliClock } from "../now.js";
import { VERSION, type CommandContext } from "../command.js";
import { progressFor } from "../progress.js";
import { schemaRefFrom } from "../schema-ref.js";
import { parseZoneRefs, resolveZoneRefs } from "../zone-ref.js";
import { type CommandTable, collectEach, collectList, commandFromTable, refuseUsage } from "../option-table.js";

interface ExportFlags extends ClientFlagValues {
  zone?: string[];
  quiet?: boolean;
  sections?: string[];
  out?: string;
  force?: boolean;
  accountId?: string;
  account?: string[];
  defaults?: boolean;
}

function parseAccounts(values: string[] | undefined): string[] {
  const ids = [...new Set((values ?? []).map((v) => v.trim().toLowerCase()))];
  const bad = ids.filter((id) => !ACCOUNT_ID.test(id));
  if (bad.length > 0)
    throw new UsageError(`--account ${bad.join(", ")}: expected an account id, 32 lower-case hex characters`);
  return ids;
}

export function parseSections(values: string[] | undefined): ExportSection[] {
  if (!values || values.length === 0) return [...EXPORT_SECTIONS];
  const bad = values.filter((v) => exportSectionNamed(v) === undefined);
  if (bad.length > 0)
    throw new UsageError(`--sections ${bad.join(", ")}: expected some of ${EXPORT_SECTIONS.join(", ")}`);
  const named = values.map(exportSectionNamed);
  return EXPORT_SECTIONS.filter((s) => named.includes(s));
}

const EXPORT: CommandTable = {
  name: "export",
  description: "Write the live zone as a zoneform file (secrets as ${env:…} references) that plans with no changes.",
  options: [
    {
      flags: "--sections <list>",
      description: `sections to export, comma list (default all): ${EXPORT_SECTIONS.join(", ")}`,
      parse: collectList,
    },
    outOption("write the file here (default: stdout)"),
    { flags: "--force", description: "overwrite the --out file if it exists" },
    {
      flags: "--account-id <id>",
      description: "account whose managed rulesets the WAF section is read through (written as account_id)",
    },
    {
      flags: "--defaults",
      description: "write what every zone shares once, in the file's defaults: (two zones or more)",
    },
    {
      flags: "--account <id>",
      description:
        "also write this account's own objects (account-level Logpush jobs) as an entry of accounts: (repeatable)",
      parse: collectEach,
    },
  ],
};

const ACCOUNT_ID = /^[0-9a-f]{32}$/;

export function register(program: Command, ctx: CommandContext): void {
  const cmd = commandFromTable(program, EXPORT);
  addReadCommandOptions(cmd, { progress: true });
  cmd.action((opts: ExportFlags) => runExport(opts, ctx));
}

async function runExport(opts: ExportFlags, ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  const accounts = parseAccounts(opts.account);
  // An account alone is an export of its own objects: no zone needed then.
  const zoneRefs = accounts.length > 0 && !opts.zone?.length ? [] : parseZoneRefs(opts.zone, "export");
  const sections = parseSections(opts.sections);
  const envAccount = io.env.CLOUDFLARE_ACCOUNT_ID?.trim();
  refuseUsage([
    [
      opts.accountId === undefined && envAccount !== undefined && envAccount !== "" && !ACCOUNT_ID.test(envAccount),
      `CLOUDFLARE_ACCOUNT_ID ${io.env.CLOUDFLARE_ACCOUNT_ID}: expected an account id, 32 lower-case hex characters`,
    ],
    [
      opts.accountId !== undefined && !ACCOUNT_ID.test(opts.accountId),
      `--account-id ${opts.accountId}: expected an account id, 32 lower-case hex characters`,
    ],
  ]);
  const outPath = opts.out ? resolve(io.cwd, opts.out) : undefined;
  if (outPath) refuseExisting(outPath, { force: opts.force, label: `--out ${opts.out}` });
  const progress = progressFor(io, opts);
  // ZONEFORM_NOW is checked before any request: a value that is not an instant is refused (exit 3) first.
  const now = cliClock(io.env);
  const client = clientFromOptions(opts, io, undefined, progress);
  let result;
  let zones: string[];
  try {
    zones = zoneRefs.length > 0 ? await resolveZoneRefs(client, zoneRefs) : [];
    progress.begin("export", "zones read", zones.length);
    result = await exportZones(client, {
      zones,
      accounts,
      sections,
      accountId: opts.accountId ?? (envAccount || undefined),
      schemaRef: schemaRefFrom(outPath ? dirname(outPath) : io.cwd),
      version: VERSION,
      now,
      onSection: () => progress.count("sections"),
      onZoneDone: (done, total) => progress.update(done, total),
      defaults: opts.defaults,
    });
  } finally {
    progress.end();
    await client.close();
  }
  await writeExport(opts, ctx, outPath, result, { zones: zones.length, accounts: accounts.length, sections });
}

async function writeExport(
  opts: ExportFlags,
  ctx: CommandContext,
  outPath: string | undefined,
  { text, notes }: Awaited<ReturnType<typeof exportZones>>,
  counts: { zones: number; accounts: number; sections: ExportSection[] },
): Promise<void> {
  const { io } = ctx;
  // The file must load as plan will load it.
  const placeholders = Object.fromEntries(notes.env.map((e) => [e.name, "placeholder"]));
  const check = checkConfigSources([{ file: opts.out ?? "<export>", text }], { ...io.env, ...placeholders });
  if (outPath) {
    await writeFileSafely(outPath, text, { force: opts.force, label: `--out ${opts.out}` });
    const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
    const what =
      counted(counts.zones, "zone") + (counts.accounts > 0 ? `, ${counted(counts.accounts, "account")}` : "");
    io.stderr.write(`Wrote ${opts.out}: ${what}, sections ${counts.sections.join(", ")}.\n`);
  } else {
    io.stdout.write(text);
  }
  for (const w of notes.warnings) io.stderr.write(`Warning: ${printable(w)}\n`);
  if (opts.defaults && counts.zones < 2)
    io.stderr.write("Warning: --defaults: one zone shares nothing with another; the file has no defaults.\n");
  if (notes.env.length > 0) {
    io.stderr.write(
      "Set these environment variables before plan or apply, to the credentials you own (the API may not " +
        "return them in full):\n",
    );
    const names = notes.env.map((e) => printable(e.name));
    const width = Math.max(...names.map((n) => n.length));
    notes.env.forEach((e, i) => {
      io.stderr.write(`  ${names[i]!.padEnd(width)}  ${printable(e.purpose)}\n`);
    });
    io.stderr.write("Existing Logpush jobs need no ownership_challenge unless you change their destination.\n");
  }
  if (check.errors.length > 0) {
    io.stderr.write(
      `Error: the exported file does not load as a zoneform file (please report ` +
        `this):\n${check.errors.map((p) => `  ${formatProblem(p)}`).join("\n")}\n`,
    );
    ctx.setExit(EXIT.error);
  }
}
