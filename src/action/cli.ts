// Runs a zoneform command in this process, as `zoneform ARGS` would: what it prints goes to the job's
// log as it comes and is kept for the summary and the comment.
import { main } from "../cli/program.js";
import type { CliIO } from "../cli/io.js";
import type { Env } from "./runner.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `quiet`: what it prints on stdout (JSON, SARIF) is kept but not shown in the log. */
export type Zoneform = (args: string[], opts?: { quiet?: boolean }) => Promise<CliRun>;

export function zoneformIn(env: Env, cwd: string, log: (text: string) => void): Zoneform {
  return async (args, opts = {}) => {
    let stdout = "";
    let stderr = "";
    log(`$ zoneform ${args.join(" ")}\n`);
    const io: CliIO = {
      stdout: { write: (t) => ((stdout += t), opts.quiet ? undefined : log(t)), isTTY: false },
      stderr: { write: (t) => ((stderr += t), log(t)), isTTY: false },
      env: { NO_COLOR: "1", ...env } as CliIO["env"],
      cwd,
    };
    const code = await main(args, io);
    return { code, stdout, stderr };
  };
}
