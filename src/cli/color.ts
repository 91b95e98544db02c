// The one decision whether zoneform colours its output: every coloured text (plans, validate, the demo) asks
// `useColor`.
// Spec: docs/commands/README.md.
import type { CliIO, Output } from "./io.js";
import type { Env } from "../model/index.js";

export interface ColorInputs {
  isTTY: boolean;
  env: Env;
  flag?: boolean;
}

/** The pure decision, from the output's terminal flag, the environment and --no-color. */
export function colorEnabled({ isTTY, env, flag }: ColorInputs): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return !["0", "false"].includes(force.trim().toLowerCase());
  if (env.TERM === "dumb") return false;
  return isTTY;
}

/** Whether text written to `out` (default stdout) is coloured, given the command's --no-color. */
export function useColor(io: CliIO, opts: { color?: boolean }, out: Output = io.stdout): boolean {
  return colorEnabled({ isTTY: out.isTTY, env: io.env, flag: opts.color });
}
