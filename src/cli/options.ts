// Options shared by the commands that read a configuration: -c/--config, and --zone, --verbose,
// --no-color. The config option has no commander default so that a command can tell "not given"
// (apply takes a plan file or -c) from the default ./zoneform.yaml.
import { Option, type Command } from "commander";
import { DEFAULT_CONFIG_PATH } from "../config/index.js";

export interface ConfigOption {
  config?: string;
}

export interface CommonOptions {
  /** --zone, repeatable: zone ids or names to limit the command to. */
  zone?: string[];
  verbose?: boolean;
  /** false with --no-color. */
  color?: boolean;
}

export function addConfigOption(cmd: Command): Command {
  return cmd.addOption(
    new Option("-c, --config <path>", `configuration file, or directory of *.yaml / *.yml files (default: ./${DEFAULT_CONFIG_PATH})`),
  );
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function addZoneOption(cmd: Command): Command {
  return cmd.addOption(new Option("--zone <id>", "limit to this zone (zone_id or name; repeatable)").argParser(collect));
}

export function addVerboseOption(cmd: Command): Command {
  return cmd.option("--verbose", "say more (and show a stack trace on an internal error)");
}

export function addColorOption(cmd: Command): Command {
  return cmd.option("--no-color", "no colours in the output (also NO_COLOR=1)");
}

/** --zone ID (repeatable), --verbose, --no-color. */
export function addCommonOptions(cmd: Command): Command {
  return addColorOption(addVerboseOption(addZoneOption(cmd)));
}

/** The config path a command should load: -c, else ./zoneform.yaml. */
export function configPath(opts: ConfigOption): string {
  return opts.config ?? DEFAULT_CONFIG_PATH;
}
