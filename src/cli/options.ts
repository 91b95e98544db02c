// Options shared by the commands that read a configuration: -c/--config, and --zone, --verbose, --no-color.
import { Option, type Command } from "commander";
import { DEFAULT_CONFIG_PATH } from "../model/index.js";
import { UsageError } from "../errors.js";

export interface ConfigOption {
  config?: string;
}

export interface CommonOptions {
  zone?: string[];
  verbose?: boolean;
  quiet?: boolean;
  color?: boolean;
}

export function configOption(): Option {
  return new Option(
    "-c, --config <path>",
    `configuration file, or directory of *.yaml / *.yml files (default: ./${DEFAULT_CONFIG_PATH})`,
  );
}

export function addConfigOption(cmd: Command): Command {
  return cmd.addOption(configOption());
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * An option naming a file (`--out <file>`, `--write <file>`, the emulator's `--state` and `--url-file`): a name that
 * is empty or only spaces (`--out ''`, an unset shell variable) is refused (exit 3) before anything is read or
 * written, never taken as "no file".
 */
export function fileOption(flags: `--${string} <file>`, description: string): Option {
  const flag = flags.slice(0, flags.indexOf(" "));
  return new Option(flags, description).argParser((value: string) => {
    if (value.trim() === "")
      throw new UsageError(`${flag} needs a file name, got ${JSON.stringify(value)}; give the path of the file`);
    return value;
  });
}

/** `--out <file>` of a command that writes a file (fileOption). */
export function outOption(description: string): Option {
  return fileOption("--out <file>", description);
}

export function addZoneOption(cmd: Command): Command {
  return cmd.addOption(
    new Option("--zone <id|name>", "limit to this zone of the file (zone_id or name; repeatable)").argParser(collect),
  );
}

export function addVerboseOption(cmd: Command): Command {
  return cmd.option("--verbose", "say more (and show a stack trace on an internal error)");
}

export function addColorOption(cmd: Command): Command {
  return cmd.option(
    "--no-color",
    "no colours in the output (also NO_COLOR=1; TERM=dumb too; FORCE_COLOR=1 colours even a pipe)",
  );
}

export interface ApproveOptions {
  autoApprove?: boolean;
  yes?: boolean;
}

/** The one confirmation flag, `--auto-approve`, and its alias `--yes`, of every command that asks. */
export function addApproveOptions(cmd: Command): Command {
  return cmd
    .option("--auto-approve", "do not ask for confirmation (needed when stdin is not a terminal)")
    .option("--yes", "alias of --auto-approve");
}

/** The user approved in advance with --auto-approve or --yes. */
export function approvedInAdvance(opts: ApproveOptions): boolean {
  return Boolean(opts.autoApprove || opts.yes);
}

/** --quiet: no progress on stderr (errors and warnings still shown), for the commands that show it. */
export function addQuietOption(cmd: Command): Command {
  return cmd.option("--quiet", "no progress on stderr (errors and warnings are still shown)");
}

/** --zone ID (repeatable), --verbose, --quiet, --no-color. */
export function addCommonOptions(cmd: Command): Command {
  return addColorOption(addQuietOption(addVerboseOption(addZoneOption(cmd))));
}

/** The config path a command should load: -c, else ./zoneform.yaml. */
export function configPath(opts: ConfigOption): string {
  return opts.config ?? DEFAULT_CONFIG_PATH;
}
