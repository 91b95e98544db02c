// How wide human output may be (docs/commands/README.md "Output width"): on a terminal, its width.
import { fitText, type FitOptions } from "../text-width.js";
import type { Env } from "../model/index.js";
import type { CliIO, Output } from "./io.js";

const MIN_WIDTH = 40;

/** The columns `out` may use, or undefined for no limit. */
export function outputWidth(out: Output, env: Env): number | undefined {
  if (out.isTTY && out.columns !== undefined && out.columns > 0) return Math.max(MIN_WIDTH, out.columns);
  const raw = env.COLUMNS?.trim();
  if (raw && /^\d+$/.test(raw) && Number(raw) > 0) return Math.max(MIN_WIDTH, Number(raw));
  return undefined;
}

/**
 * `text` fitted to the width of `out` (src/text-width.ts fitText), redacted first: what is cut or broken can no
 * longer hold a secret.
 */
export function fitFor(io: CliIO, out: Output, text: string, opts: FitOptions = {}): string {
  const width = outputWidth(out, io.env);
  if (width === undefined) return text;
  return fitText(io.secrets ? io.secrets.redact(text) : text, width, opts);
}

/**
 * `out` with each whole line written to it fitted to its width, redacted first (long words broken, never cut: a
 * message loses nothing).
 */
export function fittedOutput(out: Output, io: Pick<CliIO, "env" | "secrets">): Output {
  return {
    write: (text) => {
      const width = outputWidth(out, io.env);
      if (width === undefined || text.includes("\r") || !text.endsWith("\n")) return out.write(text);
      out.write(fitText(io.secrets ? io.secrets.redact(text) : text, width, { long: "break" }));
    },
    get isTTY() {
      return out.isTTY;
    },
    get columns() {
      return out.columns;
    },
  };
}
