// Runs a zoneform command in this process, as `zoneform ARGS` would.
import { main, type CliIO } from "../cli/index.js";
import type { Env, Runner } from "./runner.js";

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export type Zoneform = (args: string[], opts?: { quiet?: boolean }) => Promise<CliRun>;

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
