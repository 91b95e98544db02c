// `zoneform validate`: schema and semantic checks of the configuration, no network.
// Spec: docs/commands/validate.md.
import type { Command } from "commander";
import pc from "picocolors";
import { DEFAULT_MAX_DELETES, loadConfig } from "../../config/index.js";
import { formatProblem } from "../../errors.js";
import type { DesiredAccount, DesiredState, DesiredZone } from "../../sections/index.js";
import { printable } from "../../safe-text.js";
import { documentYaml } from "../../safe-yaml.js";
import { ACCOUNT_SECTIONS, SECTIONS } from "../../sections/index.js";
import {
  addColorOption,
  configOption,
  addVerboseOption,
  addZoneOption,
  configPath,
  type CommonOptions,
  type ConfigOption,
} from "../options.js";
import { useColor } from "../color.js";
import type { CommandContext } from "../command.js";
import { zonesNamed } from "../select-zones.js";
import { type CommandTable, commandFromTable } from "../option-table.js";

type ValidateOptions = ConfigOption & CommonOptions & { requireEnv?: boolean; showMerged?: boolean };

const VALIDATE: CommandTable = {
  name: "validate",
  description:
    "Check the configuration (schema and semantic rules) without contacting Cloudflare. Exit 0 when " +
    "valid, 3 when not.",
  options: [
    configOption(),
    {
      flags: "--require-env",
      description: "an unset ${env:NAME} variable is an error, as for plan and apply (default: a warning)",
    },
    {
      flags: "--show-merged",
      description:
        "print the configuration as zoneform reads it, each zone with its file's defaults merged in, as YAML on " +
        "stdout (${env:…} kept as written; the summary goes to stderr)",
    },
  ],
};

export function register(program: Command, ctx: CommandContext): void {
  const cmd = commandFromTable(program, VALIDATE);
  addZoneOption(cmd);
  addVerboseOption(cmd);
  addColorOption(cmd);
  cmd.action(async (opts: ValidateOptions) => {
    const { io } = ctx;
    const { desired, warnings } = await loadConfig(configPath(opts), {
      env: io.env,
      cwd: io.cwd,
      missingEnv: opts.requireEnv ? "error" : "warning",
    });
    // Every zone is checked.
    const shown = zonesNamed(desired, opts.zone);
    for (const w of warnings) io.stderr.write(`${formatProblem(w)}\n`);
    const summary = opts.showMerged ? io.stderr : io.stdout;
    const colors = pc.createColors(useColor(io, opts) && !opts.showMerged);
    const n = desired.zones.length;
    const files = printable(desired.files.join(", "));
    const w = warnings.length ? ` (${warnings.length} warning${warnings.length === 1 ? "" : "s"})` : "";
    summary.write(
      `${colors.green("✓")} ${n} zone${n === 1 ? "" : "s"} in ${files} ${n === 1 ? "is" : "are"} valid${w}\n`,
    );
    if (opts.verbose) for (const zone of shown.zones) summary.write(`  ${describeZone(zone)}\n`);
    if (opts.verbose) for (const account of desired.accounts ?? []) summary.write(`  ${describeAccount(account)}\n`);
    if (opts.showMerged) io.stdout.write(mergedDocument(shown));
  });
}

/**
 * The configuration written out in full: one document with each zone as its file declares it once its defaults are
 * merged in (`${env:…}` references and `$${` escapes as written, never a value), which loads as the configuration
 * does.
 */
export function mergedDocument(desired: DesiredState): string {
  const zones = desired.zones.map((zone) => {
    if (!zone.declared) throw new Error(`internal: zone ${zone.zone_id} was loaded without its declared form`);
    return zone.declared;
  });
  // The entries of accounts: as written (they take no defaults).
  const accounts = (desired.accounts ?? []).map((a) => a.declared ?? { account_id: a.account_id });
  const document = {
    version: 1,
    ...(desired.account_id !== undefined ? { account_id: desired.account_id } : {}),
    ...(desired.safety.max_deletes !== DEFAULT_MAX_DELETES ? { safety: desired.safety } : {}),
    ...(accounts.length > 0 ? { accounts } : {}),
    zones,
  };
  return (
    `# ${printable(desired.files.join(", "))} as zoneform reads it: each zone with its file's defaults merged in.\n` +
    documentYaml(document)
  );
}

/** One line per entry of `accounts:`: its token's variable and what the file manages in the account. */
export function describeAccount(account: DesiredAccount): string {
  const parts = ACCOUNT_SECTIONS.flatMap((s) => s.summary(account));
  const token = account.api_token ? `token \${env:${account.api_token.env}}` : "token CLOUDFLARE_API_TOKEN";
  return printable(`account ${account.account_id} (${token}): ${parts.length ? parts.join(", ") : "nothing managed"}`);
}

/** One line per zone: what the file manages in it, each section saying its part. */
export function describeZone(zone: DesiredZone): string {
  const parts = SECTIONS.flatMap((s) => s.summary(zone));
  const label = zone.name ? `${zone.name} (${zone.zone_id})` : zone.zone_id;
  return printable(`${label}: ${parts.length ? parts.join(", ") : "nothing managed"}`);
}
