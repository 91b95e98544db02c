// The command-line program: each command's module is loaded alone when the command line names it
// (COMMANDS, the one list of commands), and the one catch: every ZoneformError becomes its message on
// stderr and its exit code; anything else is an internal error (exit 1) without a stack trace unless
// --verbose. Messages carry the API's text: every control character but zoneform's own newlines is
// shown escaped.
import { Command, CommanderError } from "commander";
import { ZoneformError, EXIT } from "../errors.js";
import { printable } from "../safe-text.js";
import { redactingIO, type CliIO } from "./io.js";
import { addColorOption, addQuietOption, addVerboseOption } from "./options.js";
import { fittedOutput } from "./width.js";
import { VERSION, type CommandContext, type Register } from "./command.js";

export type { CommandContext } from "./command.js";

/**
 * Every command, in the order of `--help`: its module, loaded alone when the command line names it, so
 * that a command loads only what it runs (a plan never loads the emulator, `validate` never loads
 * undici). Any other command line (help, a typo) loads them all. In the bundled executable each is a
 * chunk of its own (scripts/bundle-cli.mjs).
 */
const COMMANDS: Record<string, () => Promise<{ register: Register }>> = {
  validate: () => import("./commands/validate.js"),
  plan: () => import("./commands/plan.js"),
  apply: () => import("./commands/apply.js"),
  show: () => import("./commands/show.js"),
  drift: () => import("./commands/drift.js"),
  emulator: () => import("./commands/emulator.js"),
  certificates: () => import("./commands/certificates.js"),
  "waf-migration": () => import("./commands/waf-migration.js"),
  audit: () => import("./commands/audit.js"),
  inventory: () => import("./commands/inventory.js"),
  csp: () => import("./commands/csp.js"),
  export: () => import("./commands/export.js"),
  logpush: () => import("./commands/logpush.js"),
  whoami: () => import("./commands/whoami.js"),
};

/** The program with every command, or (`only`) with the one command the command line names. */
export async function buildProgram(ctx: CommandContext, only?: string): Promise<Command> {
  const program = new Command("zoneform")
    .description("Keep a Cloudflare zone's security configuration in YAML and make the live zone match it.")
    .version(VERSION, "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    })
    .exitOverride();
  const names = only !== undefined && Object.hasOwn(COMMANDS, only) ? [only] : Object.keys(COMMANDS);
  const modules = await Promise.all(names.map((name) => COMMANDS[name]!()));
  for (const { register } of modules) register(program, ctx);
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

/**
 * The flags every command takes (docs/commands/README.md, common flags): `--verbose`, `--quiet` and
 * `--no-color`, added to a command that does not declare them itself; where a command has no progress
 * or no colour, the flag has nothing to turn off and is accepted all the same, so that a script can
 * pass them to any command.
 */
function withCommonFlags(cmd: Command): void {
  const has = (flag: string) => cmd.options.some((o) => o.long === flag);
  if (!has("--verbose")) addVerboseOption(cmd);
  if (!has("--quiet")) addQuietOption(cmd);
  if (!has("--no-color")) addColorOption(cmd);
}

/**
 * Runs zoneform with `argv` (without node and script) and returns the exit code.
 * @public scripts/bench/measure.mjs imports it from dist/ (knip cannot follow that path).
 */
export async function main(argv: string[], rawIO: CliIO): Promise<number> {
  // The emulator prints its own ready token on purpose; everything else never shows a credential.
  const redacted = redactingIO(
    rawIO,
    argv[0] === "emulator" ? { keepEnv: ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY"] } : {},
  );
  // Messages on stderr fit the terminal (src/cli/width.ts); the emulator's lines are read by programs.
  const io = argv[0] === "emulator" ? redacted : { ...redacted, stderr: fittedOutput(redacted.stderr, redacted) };
  let exitCode: number = EXIT.ok;
  const ctx: CommandContext = { io, setExit: (c) => (exitCode = c) };
  try {
    argv = helpRequest(argv);
    // The version alone needs no command registered (it prints as fast as Node starts).
    if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    const program = await buildProgram(ctx, argv[0]);
    await program.parseAsync(groupHelpRequest(argv, program), { from: "user" });
    return exitCode;
  } catch (err) {
    return reportError(err, io, argv.includes("--verbose"));
  }
}

/**
 * Help always goes to stdout and exits 0: `zoneform help X Y` is `zoneform X Y --help`, and bare
 * `zoneform` is `zoneform --help` (commander would print it on stderr as an error).
 */
function helpRequest(argv: string[]): string[] {
  if (argv.length === 0) return ["--help"];
  if (argv[0] === "help" && argv.length > 1) return [...argv.slice(1), "--help"];
  return argv;
}

/** A command group named alone (`zoneform waf-migration`) shows its help on stdout, like bare `zoneform`. */
function groupHelpRequest(argv: string[], program: Command): string[] {
  if (argv.length !== 1) return argv;
  const group = program.commands.find((c) => c.name() === argv[0] && c.commands.length > 0);
  return group ? [...argv, "--help"] : argv;
}

export function reportError(err: unknown, io: CliIO, verbose: boolean): number {
  if (err instanceof CommanderError) {
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") {
      return EXIT.ok;
    }
    // commander has already printed its message.
    return EXIT.invalid;
  }
  if (err instanceof ZoneformError) {
    io.stderr.write(`Error: ${printable(err.message, { keepNewlines: true })}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.stderr.write(`Internal error: ${printable(message, { keepNewlines: true })}\n`);
  if (verbose && err instanceof Error && err.stack)
    io.stderr.write(`${printable(err.stack, { keepNewlines: true })}\n`);
  else io.stderr.write("This is a bug in zoneform; run again with --verbose and report it with that output.\n");
  return EXIT.error;
}
