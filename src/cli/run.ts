// Runs the command line in this process and sets its exit code: the program's start (main.ts).
import process from "node:process";
import { outputFailed, processIO, type CliIO } from "./io.js";
import { handleProcessWarnings } from "./warnings.js";

export async function run(main: (argv: string[], io: CliIO) => Promise<number>): Promise<void> {
  const io = processIO();
  handleProcessWarnings(process.argv, io);
  const code = await main(process.argv.slice(2), io);
  // A reader that went away (`| head`) is not an error.
  const failed = outputFailed();
  if (failed && code === 0) io.stderr.write(`Error: writing the output failed (${failed.code ?? failed.message})\n`);
  process.exitCode = failed && code === 0 ? 1 : code;
}
