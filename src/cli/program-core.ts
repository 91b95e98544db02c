// The command-line program from the commands it is given (program.ts gives every command; the bundled
// `validate` only its own), and the one catch: every ZoneformError becomes its message on stderr and
// its exit code; anything else is an internal error (exit 1) without a stack trace unless --verbose.
// Messages carry the API's text: every control character but zoneform's own newlines is shown escaped.
import { Command, CommanderError } from "commander";
import { ZoneformError, EXIT } from "../errors.js";
import { printable } from "../safe-text.js";
import { redactingIO, type CliIO } from "./io.js";

export interface CommandContext {
  io: CliIO;
  /** Set by a command's action: the process exit code. */
  setExit(code: number): void;
}

export type Register = (program: Command, ctx: CommandContext) => void;

/** How the program gets its commands: each alone by name, and (for help, a typo) all of them. */
export interface CommandLoaders {
  alone: Record<string, () => Promise<{ register: Register }>>;
  all: () => Promise<{ registerCommands: (program: Command, ctx: CommandContext) => void }>;
}

/** The program with every command, or (`only`) with the one command the command line names. */
export async function buildProgramWith(loaders: CommandLoaders, ctx: CommandContext, only?: string): Promise<Command> {
  const program = new Command("zoneform")
    .description("Keep a Cloudflare zone's security configuration in YAML and make the live zone match it.")
    .version(VERSION, "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    })
    .exitOverride();
  const alone = only !== undefined && Object.hasOwn(loaders.alone, only) ? loaders.alone[only] : undefined;
  if (alone) (await alone()).register(program, ctx);
  else (await loaders.all()).registerCommands(program, ctx);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput({
    writeOut: (s) => ctx.io.stdout.write(s),
    writeErr: (s) => ctx.io.stderr.write(s),
  });
  return program;
}

/** zoneform's version; a test keeps it equal to package.json's. */
export const VERSION = "0.1.0";

/** Runs zoneform with `argv` (without node and script) and returns the exit code. */
export async function mainWith(loaders: CommandLoaders, argv: string[], rawIO: CliIO): Promise<number> {
  // The emulator prints its own ready token on purpose; everything else never shows a credential.
  const io = redactingIO(rawIO, argv[0] === "emulator" ? { keepEnv: ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY"] } : {});
  let exitCode: number = EXIT.ok;
  const ctx: CommandContext = { io, setExit: (c) => (exitCode = c) };
  try {
    argv = helpRequest(argv);
    // The version alone needs no command registered (it prints as fast as Node starts).
    if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    const program = await buildProgramWith(loaders, ctx, argv[0]);
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
export function helpRequest(argv: string[]): string[] {
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
  if (verbose && err instanceof Error && err.stack) io.stderr.write(`${printable(err.stack, { keepNewlines: true })}\n`);
  else io.stderr.write("This is a bug in zoneform; run again with --verbose and report it with that output.\n");
  return EXIT.error;
}
