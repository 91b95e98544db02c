// Node's process warnings (process.emitWarning: a dependency's notice, an experimental API, a deprecation) are never
// printed raw on stderr: Node's own printer, "(node:123) Warning: …" with a hint to run node with --trace-warnings,
// is removed.
import process from "node:process";
import { printable } from "../safe-text.js";
import type { CliIO } from "./io.js";

/** Replaces Node's warning printer for this process: silent, or one `note:` line each with --verbose. */
export function handleProcessWarnings(argv: readonly string[], io: CliIO): void {
  const verbose = argv.includes("--verbose");
  process.removeAllListeners("warning");
  process.on("warning", (warning: Error) => {
    if (!verbose) return;
    const text = `${warning.name}: ${warning.message}`.split("\n")[0]!.slice(0, 500);
    io.stderr.write(`note: Node.js ${printable(text)}\n`);
  });
}
