// `zoneform validate`: schema and semantic checks of the configuration, no network. Exit 0 when valid;
// an invalid file throws the ConfigError that the one catch prints (exit 3).
import type { Command } from "commander";
import pc from "picocolors";
import { loadConfig } from "../../config/index.js";
import { formatProblem } from "../../errors.js";
import type { DesiredZone } from "../../sections/index.js";
import { printable } from "../../safe-text.js";
import { SECTIONS } from "../../sections/index.js";
import {
  addColorOption,
  addConfigOption,
  addVerboseOption,
  configPath,
  type CommonOptions,
  type ConfigOption,
} from "../options.js";
import { useColor } from "../color.js";
import type { CommandContext } from "../command.js";

type ValidateOptions = ConfigOption & CommonOptions & { requireEnv?: boolean };

export function register(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command("validate")
    .description(
      "Check the configuration (schema and semantic rules) without contacting Cloudflare. Exit 0 when " +
        "valid, 3 when not.",
    );
  addConfigOption(cmd);
  cmd.option("--require-env", "an unset ${env:NAME} variable is an error, as for plan and apply (default: a warning)");
  addVerboseOption(cmd);
  addColorOption(cmd);
  cmd.action(async (opts: ValidateOptions) => {
    const { io } = ctx;
    const { desired, warnings } = await loadConfig(configPath(opts), {
      env: io.env,
      cwd: io.cwd,
      missingEnv: opts.requireEnv ? "error" : "warning",
    });
    for (const w of warnings) io.stderr.write(`${formatProblem(w)}\n`);
    const colors = pc.createColors(useColor(io, opts));
    const n = desired.zones.length;
    const files = printable(desired.files.join(", "));
    const w = warnings.length ? ` (${warnings.length} warning${warnings.length === 1 ? "" : "s"})` : "";
    io.stdout.write(
      `${colors.green("✓")} ${n} zone${n === 1 ? "" : "s"} in ${files} ${n === 1 ? "is" : "are"} valid${w}\n`,
    );
    if (opts.verbose) for (const zone of desired.zones) io.stdout.write(`  ${describeZone(zone)}\n`);
  });
}

/** One line per zone: what the file manages in it, each section saying its part. */
export function describeZone(zone: DesiredZone): string {
  const parts = SECTIONS.flatMap((s) => s.summary(zone));
  const label = zone.name ? `${zone.name} (${zone.zone_id})` : zone.zone_id;
  return printable(`${label}: ${parts.length ? parts.join(", ") : "nothing managed"}`);
}
