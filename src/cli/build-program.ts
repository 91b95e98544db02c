// The commander program of the commands loaded (command-modules.ts): each registers itself, and every leaf command
// gets the common flags.
import { Command, CommanderError } from "commander";
import { EXIT } from "../errors.js";
import type { CommandContext } from "./command.js";
import { VERSION } from "./command.js";
import { type CommandModule, loadCommands } from "./command-modules.js";
import { addColorOption, addQuietOption, addVerboseOption } from "./options.js";

/** The program with every command, or (`only`) with the one command the command line names. */
export async function buildProgram(ctx: CommandContext, only?: string, modules?: CommandModule[]): Promise<Command> {
  const program = new Command("zoneform")
    .description("Keep a Cloudflare zone's security configuration in YAML and make the live zone match it.")
    .version(VERSION, "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    })
    .exitOverride();
  for (const { register } of modules ?? (await loadCommands(only))) register(program, ctx);
  for (const cmd of program.commands)
    cmd.exitOverride().configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    });
  for (const cmd of leafCommands(program)) withCommonFlags(cmd);
  return program;
}

function leafCommands(cmd: Command): Command[] {
  return cmd.commands.length === 0 ? [cmd] : cmd.commands.flatMap(leafCommands);
}

function withCommonFlags(cmd: Command): void {
  const has = (flag: string) => cmd.options.some((o) => o.long === flag);
  if (!has("--verbose")) addVerboseOption(cmd);
  if (!has("--quiet")) addQuietOption(cmd);
  if (!has("--no-color")) addColorOption(cmd);
}

/** A command group named alone (`zoneform waf-migration`) shows its help on stdout, like bare `zoneform`. */
export function groupHelpRequest(argv: string[], program: Command): string[] {
  if (argv.length !== 1) return argv;
  const group = program.commands.find((c) => c.name() === argv[0] && c.commands.length > 0);
  return group ? [...argv, "--help"] : argv;
}

/**
 * The exit code of commander's own outcome (help or version shown: 0; a usage error, which commander has already
 * printed: 3), or undefined when `err` is not commander's.
 */
export function commanderExit(err: unknown): number | undefined {
  if (!(err instanceof CommanderError)) return undefined;
  if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") {
    return EXIT.ok;
  }
  return EXIT.invalid;
}
