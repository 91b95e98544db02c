// `zoneform waf-migration check|config|start|status`: the guided, irreversible move of a zone from the previous WAF
// managed rules to the new ones.
// Spec: docs/commands/waf-migration.md.
import { NO_SECRETS } from "../../secrets/index.js";
import { dirname, resolve } from "node:path";
import { Option, type Command } from "commander";
import type { CloudflareClient } from "../../cloudflare/index.js";
import { createReadContext, executeOne } from "../../engine/index.js";
import { AnswerShapeError, ApiError, EXIT, RuntimeError, UsageError } from "../../errors.js";
import { printable } from "../../safe-text.js";
import {
  mapMigrationConfig,
  renderMigrationYaml,
  type MappedConfig,
  type MigrationConfig,
  describeStart,
  explainCheck,
  explainStatus,
  MIGRATION_MODES,
  startRefusal,
  type MigrationCheck,
  type MigrationMode,
  type MigrationStatus,
  sensitivityTableLines,
  planSwitch,
  sameEntrypoint,
  WAF_PHASE,
} from "../../migration/index.js";
import {
  readOwaspRuleset,
  type OwaspRuleset,
  readEntrypoint,
  type Entrypoint,
  type ReadContext,
  readZoneInfo,
  type DesiredState,
} from "../../sections/index.js";
import { refuseExisting, writeFileSafely } from "../../write-file.js";
import { addReadCommandOptions, clientFromOptions, type ClientFlagValues } from "../client-options.js";
import type { CliIO } from "../io.js";
import { addApproveOptions, approvedInAdvance, fileOption, type ApproveOptions } from "../options.js";
import type { CommandContext } from "../command.js";
import { parseZoneRefs, resolveZoneRef, type ZoneRef } from "../zone-ref.js";
import { schemaRefFrom } from "../schema-ref.js";
import { guidedRun } from "../signals.js";
import { addOptionRows, type CommandTable } from "../option-table.js";

interface MigrationOptions extends ClientFlagValues {
  zone?: string[];
}

/** Version of `config --format json`. */
export const MIGRATION_CONFIG_FORMAT_VERSION = 1;

const migrationPath = (zoneId: string, what: "check" | "config" | "status") => `zones/${zoneId}/waf_migration/${what}`;

/** Lines told from the API's answers, one printable line each (control characters escaped), and a final newline. */
const printLines = (lines: readonly string[]): string => `${lines.map((l) => printable(l)).join("\n")}\n`;

function zoneRefOf(opts: MigrationOptions, sub: string): ZoneRef {
  return parseZoneRefs(opts.zone, `waf-migration ${sub}`, { single: "the migration is per zone" })[0]!;
}

async function withClient<T>(
  opts: MigrationOptions,
  io: CliIO,
  zone: ZoneRef,
  fn: (client: CloudflareClient, zoneId: string) => Promise<T>,
): Promise<T> {
  const client = clientFromOptions(opts, io);
  try {
    return await fn(client, await resolveZoneRef(client, zone));
  } finally {
    await client.close();
  }
}

function readStatus(client: CloudflareClient, zoneId: string): Promise<MigrationStatus> {
  return client.request<MigrationStatus>("GET", migrationPath(zoneId, "status"));
}

async function readCheck(client: CloudflareClient, zoneId: string): Promise<MigrationCheck> {
  try {
    return await client.request<MigrationCheck>("GET", migrationPath(zoneId, "check"), { query: { phase_two: 1 } });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 400) throw err;
    const status = await readStatus(client, zoneId).catch(() => undefined);
    if (status?.new_waf_status === "enabled" && status.old_waf_status === "disabled")
      return { compatible: true, migration_state: "done" };
    throw err;
  }
}

function readContext(client: CloudflareClient, io: CliIO): ReadContext {
  const account = io.env.CLOUDFLARE_ACCOUNT_ID?.trim();
  const desired: DesiredState = {
    version: 1,
    safety: { max_deletes: 5 },
    zones: [],
    secrets: NO_SECRETS,
    files: [],
    ...(account && /^[0-9a-f]{32}$/.test(account) ? { account_id: account } : {}),
  };
  return createReadContext(client, desired);
}

async function readOwasp(client: CloudflareClient, zoneId: string, io: CliIO): Promise<OwaspRuleset | null> {
  const ctx = readContext(client, io);
  try {
    return await readOwaspRuleset(ctx, zoneId);
  } catch (err) {
    if (!(err instanceof ApiError) && !(err instanceof AnswerShapeError)) throw err;
    io.stderr.write(
      `Warning: could not read the OWASP Core Ruleset (${printable(err.message)}); using its documented ` +
        `last rule and defaults.\n`,
    );
    return null;
  }
}

async function readProposal(
  client: CloudflareClient,
  zoneId: string,
  io: CliIO,
): Promise<{ config: MigrationConfig; mapped: MappedConfig }> {
  const config = await client.request<MigrationConfig>("GET", migrationPath(zoneId, "config"), {
    query: { phase_two: 1 },
  });
  if (!config || !Array.isArray(config.rules)) {
    throw new RuntimeError(`GET ${migrationPath(zoneId, "config")}: the answer holds no rules; nothing to migrate to`);
  }
  const mapped = mapMigrationConfig(config, await readOwasp(client, zoneId, io));
  return { config, mapped };
}

function schemaRefFor(outFile: string | undefined, cwd: string): string | undefined {
  return schemaRefFrom(outFile ? dirname(resolve(cwd, outFile)) : cwd);
}

function proposalYaml(
  zoneId: string,
  zoneName: string | undefined,
  mapped: MappedConfig,
  schemaRef: string | undefined,
): string {
  const header = [
    `The new WAF managed rules proposed for zone ${zoneId} by`,
    `GET ${migrationPath(zoneId, "config")}?phase_two=1, as a zoneform file.`,
    "Once `zoneform waf-migration start --mode pending` has saved it, this file plans with no changes.",
    "",
    ...mapped.summary.map((l) => `- ${printable(l)}`),
    ...mapped.warnings.map((w) => `Warning: ${printable(w)}`),
    "",
    "Sensitivity mapping of the migration (previous WAF → new); old action Simulate becomes log:",
    ...sensitivityTableLines().map((l) => `  ${l}`),
  ];
  return renderMigrationYaml({ zoneId, ...(zoneName ? { zoneName } : {}), waf: mapped.waf, schemaRef, header });
}

function check(ctx: CommandContext) {
  return async (opts: MigrationOptions) => {
    const zone = zoneRefOf(opts, "check");
    await withClient(opts, ctx.io, zone, async (client, zoneId) => {
      const result = explainCheck(zoneId, await readCheck(client, zoneId));
      ctx.io.stdout.write(printLines(result.lines));
      if (!result.eligible) ctx.setExit(EXIT.error);
    });
  };
}

interface ConfigOptions extends MigrationOptions {
  write?: string;
  force?: boolean;
  format?: string;
}

function config(ctx: CommandContext) {
  return async (opts: ConfigOptions) => {
    const { io } = ctx;
    const zone = zoneRefOf(opts, "config");
    const format = opts.format ?? "yaml";
    if (format !== "yaml" && format !== "json") throw new UsageError(`--format ${format}: expected yaml or json`);
    const writeLabel = `--write ${opts.write}`;
    if (opts.write) refuseExisting(resolve(io.cwd, opts.write), { force: opts.force, label: writeLabel });
    await withClient(opts, io, zone, async (client, zoneId) => {
      const { config: proposal, mapped } = await readProposal(client, zoneId, io);
      const info = await readZoneInfo(client, zoneId);
      for (const w of mapped.warnings) io.stderr.write(`Warning: ${printable(w)}\n`);
      if (format === "json") {
        io.stdout.write(
          `${JSON.stringify(
            {
              format_version: MIGRATION_CONFIG_FORMAT_VERSION,
              zone_id: zoneId,
              config: proposal,
              waf: mapped.waf,
              summary: mapped.summary,
              warnings: mapped.warnings,
            },
            null,
            2,
          )}\n`,
        );
      } else {
        io.stdout.write(proposalYaml(zoneId, info?.name, mapped, schemaRefFor(undefined, io.cwd)));
      }
      if (opts.write) {
        const path = resolve(io.cwd, opts.write);
        await writeFileSafely(path, proposalYaml(zoneId, info?.name, mapped, schemaRefFor(opts.write, io.cwd)), {
          force: opts.force,
          label: writeLabel,
        });
        io.stderr.write(
          `Wrote ${opts.write}. After \`zoneform waf-migration start --mode pending\`, \`zoneform plan -c ` +
            `${opts.write}\` shows no changes.\n`,
        );
      }
    });
  };
}

interface StartOptions extends MigrationOptions, ApproveOptions {
  mode?: string;
}

async function confirm(io: CliIO, zoneId: string, opts: StartOptions): Promise<void> {
  if (approvedInAdvance(opts)) return;
  const answer = await io.prompt!(`This cannot be undone. Type 'yes' to migrate ${zoneId}: `);
  if (answer.trim() !== "yes") throw new RuntimeError("Migration cancelled; nothing was changed.");
}

/**
 * The entry point read again right before the switch: a rule changed (or added, or removed) since the confirmation
 * showed the list would be overwritten by the PUT, so the run stops without writing.
 */
async function refuseChanged(
  client: CloudflareClient,
  io: CliIO,
  zoneId: string,
  shown: Entrypoint | null,
): Promise<void> {
  const now = await readEntrypoint(readContext(client, io), zoneId, WAF_PHASE);
  if (sameEntrypoint(shown, now)) return;
  throw new RuntimeError(
    `the ${WAF_PHASE} entry point changed after it was read and shown (someone else wrote to it); the ` +
      `switch would not send what was reviewed, so nothing was changed. Run the command again to review the ` +
      `current rules.`,
  );
}

function start(ctx: CommandContext) {
  return async (opts: StartOptions) => {
    const { io } = ctx;
    const zone = zoneRefOf(opts, "start");
    const mode = opts.mode as MigrationMode;
    if (!MIGRATION_MODES.includes(mode))
      throw new UsageError(`--mode ${opts.mode ?? ""}: expected validation or pending`);
    // A signal stops it at once before the switch, and stops sending once the switch is sent (signals.ts).
    await guidedRun(ctx, (guard, write) =>
      withClient(opts, io, zone, async (client, zoneId) => {
        const state = await readCheck(client, zoneId);
        const info = mode === "validation" ? await readZoneInfo(client, zoneId) : undefined;
        const label = info?.name ? `${info.name} (${zoneId})` : zoneId;
        const refusal = startRefusal(label, state, mode, info?.plan);
        if (refusal) throw new RuntimeError(refusal);
        const { config: proposal, mapped } = await readProposal(client, zoneId, io);
        const live = await readEntrypoint(readContext(client, io), zoneId, WAF_PHASE);
        const switchWrite = planSwitch(zoneId, mode, proposal, live);
        if ("error" in switchWrite) throw new RuntimeError(switchWrite.error);

        const shown = [
          ...describeStart(label, mode, state.migration_state === "validation"),
          "",
          "Proposed configuration (from the migration API):",
          ...mapped.summary.map((l) => `  - ${l}`),
          ...mapped.warnings.map((w) => `  Warning: ${w}`),
          "",
          "The write, exactly (nothing else is written):",
          ...switchWrite.lines,
        ];
        if (mode === "validation" && info?.plan === undefined) {
          shown.push(
            "",
            "The zone's plan could not be read (GET zones/{id}); the API refuses validation mode unless the " +
              "zone is Enterprise.",
          );
        }
        io.stdout.write(`${printLines(shown)}\n`);
        if (!approvedInAdvance(opts) && !io.prompt) {
          throw new RuntimeError(
            "the migration needs confirmation, but stdin is not a terminal: review the above and pass " +
              "--auto-approve (or --yes). Nothing was changed.",
          );
        }
        await confirm(io, zoneId, opts);
        await refuseChanged(client, io, zoneId, live);

        // Made and reported as apply makes its changes: exit 1 when nothing was written, 4 when it may have been.
        await write(client, () =>
          executeOne(client, label, {
            kind: "update",
            resource: "waf_migration",
            zone_id: zoneId,
            identity: mode,
            fields: [{ field: "mode", after: mode }],
            operations: [switchWrite.operation],
          }),
        );
        const done =
          mode === "validation"
            ? "Validation mode started: both WAFs run."
            : "Migrated: the new WAF managed rules run, the previous ones are disabled.";
        // Stopped by a signal: nothing more is read.
        if (guard.stopping()) io.stdout.write(`${done}\n`);
        else io.stdout.write(`${done}\n${printLines(explainStatus(label, await readStatus(client, zoneId)))}`);
      }),
    );
  };
}

function status(ctx: CommandContext) {
  return async (opts: MigrationOptions) => {
    const zone = zoneRefOf(opts, "status");
    await withClient(opts, ctx.io, zone, async (client, zoneId) => {
      ctx.io.stdout.write(printLines(explainStatus(zoneId, await readStatus(client, zoneId))));
    });
  };
}

function subcommand(parent: Command, name: string, description: string): Command {
  const cmd = parent.command(name).description(description);
  return addReadCommandOptions(cmd, { single: true, verbose: "log every API call to stderr" });
}

interface Subcommand {
  name: string;
  description: string;
  options: CommandTable["options"];
  approve?: true;
  action: (ctx: CommandContext) => Parameters<Command["action"]>[0];
}

const SUBCOMMANDS: Subcommand[] = [
  {
    name: "check",
    description: "Whether the zone can be migrated, and why not (exit 0 eligible, 1 not eligible or already migrated).",
    options: [],
    action: check,
  },
  {
    name: "config",
    description: "Show the proposed new WAF configuration as a zoneform file (the `waf:` section); --write saves it.",
    options: [
      fileOption("--write <file>", "also write the zoneform YAML to this file"),
      { flags: "--force", description: "overwrite the --write file if it exists" },
      { flags: "--format <format>", description: "yaml | json", default: "yaml" },
    ],
    action: config,
  },
  {
    name: "start",
    description:
      "Start the migration: --mode validation (Enterprise only: both WAFs run) or --mode pending (new WAF " +
      "only; the previous one is disabled). Irreversible: asks for confirmation unless --auto-approve " +
      "(or --yes).",
    options: [new Option("--mode <mode>", "validation | pending").choices([...MIGRATION_MODES]).makeOptionMandatory()],
    approve: true,
    action: start,
  },
  {
    name: "status",
    description: "Which WAF runs on the zone: previous, both (validation), or new.",
    options: [],
    action: status,
  },
];

export function register(program: Command, ctx: CommandContext): void {
  const parent = program
    .command("waf-migration")
    .description(
      "Move a zone from the previous WAF managed rules to the new ones: check, config, start --mode " +
        "validation|pending (irreversible, confirmed), status. Exit 0 done, 1 refused or error.",
    );
  for (const sub of SUBCOMMANDS) {
    const cmd = addOptionRows(subcommand(parent, sub.name, sub.description), sub.options);
    if (sub.approve) addApproveOptions(cmd);
    cmd.action(sub.action(ctx));
  }
  for (const cmd of parent.commands) {
    cmd
      .exitOverride()
      .configureOutput({ writeOut: (s) => ctx.io.stdout.write(s), writeErr: (s) => ctx.io.stderr.write(s) });
  }
}
