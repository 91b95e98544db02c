// Runs a zoneform command in this process, as `zoneform ARGS` would, and keeps what it prints for the
// Action to decide on by its exit code alone (never by its text) and to show. In the job's log the
// command line and everything it printed appear once it has ended, as one fenced block (runner.ts):
// what it prints holds data (live descriptions, values of the file), which no workflow command in it
// may turn into an output, a mask or an annotation.
import { main, type CliIO } from "../cli/index.js";
import type { Env, Runner } from "./runner.js";

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `quiet`: what it prints on stdout (JSON, SARIF) is kept but not shown in the log. */
export type Zoneform = (args: string[], opts?: { quiet?: boolean }) => Promise<CliRun>;

/**
 * `env` is the CLI's whole environment (cli-env.ts); `refused`, when set, names references of variables
 * it is never given: then no command runs, and that line is the failure.
 */
export function zoneformIn(env: Env, cwd: string, runner: Pick<Runner, "fenced">, refused?: string): Zoneform {
  return async (args, opts = {}) => {
    // Every mode's failure (main.ts); plan and apply say it first, in their comment and summary.
    if (refused !== undefined) throw new Error(refused);
    let stdout = "";
    let stderr = "";
    let shown = `$ zoneform ${args.join(" ")}\n`;
    const io: CliIO = {
      stdout: {
        write: (t) => {
          stdout += t;
          if (!opts.quiet) shown += t;
        },
        isTTY: false,
      },
      stderr: {
        write: (t) => {
          stderr += t;
          shown += t;
        },
        isTTY: false,
      },
      env: { NO_COLOR: "1", ...env } as CliIO["env"],
      cwd,
    };
    let code: number;
    try {
      code = await main(args, io);
    } finally {
      runner.fenced(shown);
    }
    return { code, stdout, stderr };
  };
}
