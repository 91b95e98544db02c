// The command-line program: the command's module (command-modules.ts) and commander (build-program.ts) are loaded
// when the command line asks for more than the version, and the one catch: every ZoneformError becomes its message
// on stderr and its exit code.
import { ZoneformError, EXIT } from "../errors.js";
import { printable } from "../safe-text.js";
import { redactingIO, type CliIO } from "./io.js";
import { fittedOutput } from "./width.js";
import { VERSION, type CommandContext } from "./command.js";
import { loadCommands } from "./command-modules.js";

/**
 * Runs zoneform with `argv` (without node and script) and returns the exit code.
 * @public scripts/bench/measure.mjs imports it from dist/ (knip cannot follow that path).
 */
export async function main(argv: string[], rawIO: CliIO): Promise<number> {
  // The emulator prints its own ready token on purpose.
  const redacted = redactingIO(
    rawIO,
    argv[0] === "emulator" ? { keepEnv: ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY"] } : {},
  );
  // Messages on stderr fit the terminal (src/cli/width.ts).
  const io = argv[0] === "emulator" ? redacted : { ...redacted, stderr: fittedOutput(redacted.stderr, redacted) };
  let exitCode: number = EXIT.ok;
  let commanderExit: ((err: unknown) => number | undefined) | undefined;
  const ctx: CommandContext = { io, setExit: (c) => (exitCode = c) };
  try {
    argv = helpRequest(argv);
    // The version alone needs no command registered (it prints as fast as Node starts).
    if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    // The command's module and commander load side by side.
    const [builder, modules] = await Promise.all([import("./build-program.js"), loadCommands(argv[0])]);
    commanderExit = builder.commanderExit;
    const program = await builder.buildProgram(ctx, argv[0], modules);
    await program.parseAsync(builder.groupHelpRequest(argv, program), { from: "user" });
    return exitCode;
  } catch (err) {
    return commanderExit?.(err) ?? reportError(err, io, argv.includes("--verbose"));
  }
}

function helpRequest(argv: string[]): string[] {
  if (argv.length === 0) return ["--help"];
  if (argv[0] === "help" && argv.length > 1) return [...argv.slice(1), "--help"];
  return argv;
}

export function reportError(err: unknown, io: CliIO, verbose: boolean): number {
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
