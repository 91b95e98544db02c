// The flags that bound a run (docs/commands/README.md "Flags for the API"): --max-wait (the longest wait the server
// may ask for), --deadline (the whole run), --max-body-size (one answer's body) and --max-read-bytes (all the
// answers to the run's reads), each with its environment variable.
import type { Command } from "commander";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_READ_BYTES, DEFAULT_MAX_WAIT_MS } from "../cloudflare/index.js";
import { UsageError } from "../errors.js";
import type { Env } from "../model/index.js";

export interface BoundFlagValues {
  maxWait?: string;
  deadline?: string;
  maxBodySize?: string;
  maxReadBytes?: string;
}

const BOUND_ENV = {
  maxWait: "ZONEFORM_MAX_WAIT",
  deadline: "ZONEFORM_DEADLINE",
  maxBodySize: "ZONEFORM_MAX_BODY_SIZE",
  maxReadBytes: "ZONEFORM_MAX_READ_BYTES",
} as const;

export function addBoundOptions(cmd: Command): Command {
  return cmd
    .option(
      "--max-wait <duration>",
      `longest wait the API may ask for (Retry-After, rate-limit reset), e.g. 90s, 5m (env ` +
        `${BOUND_ENV.maxWait}; default 5m); a longer one stops the run`,
    )
    .option(
      "--deadline <duration>",
      `stop sending requests this long after the start, e.g. 10m, 1h (env ${BOUND_ENV.deadline}; default ` +
        `none); exit 124`,
    )
    .option(
      "--max-body-size <size>",
      `largest answer body read, e.g. 64MiB, 512KiB (env ${BOUND_ENV.maxBodySize}; default 64MiB)`,
    )
    .option(
      "--max-read-bytes <size>",
      `most the answers to the run's reads may take in all, e.g. 2GiB (env ${BOUND_ENV.maxReadBytes}; default ` +
        "512MiB); past it the run stops",
    );
}

/** The client's bounds from the flags and environment. */
export function boundsFromOptions(
  opts: BoundFlagValues,
  env: Env,
  elapsedMs: number,
): { maxWaitMs: number; deadlineMs?: number; maxBodyBytes: number; maxReadBytes: number } {
  const pick = (flag: string | undefined, name: keyof typeof BOUND_ENV): [string, string] | undefined => {
    if (flag !== undefined) return [flag, `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`];
    const v = env[BOUND_ENV[name]];
    return v !== undefined && v.trim() !== "" ? [v, BOUND_ENV[name]] : undefined;
  };
  const wait = pick(opts.maxWait, "maxWait");
  const deadline = pick(opts.deadline, "deadline");
  const body = pick(opts.maxBodySize, "maxBodySize");
  const read = pick(opts.maxReadBytes, "maxReadBytes");
  const deadlineMs = deadline ? parseDuration(deadline[0], deadline[1]) : undefined;
  return {
    maxWaitMs: wait ? parseDuration(wait[0], wait[1]) : DEFAULT_MAX_WAIT_MS,
    ...(deadlineMs !== undefined ? { deadlineMs: Math.max(0, deadlineMs - elapsedMs) } : {}),
    maxBodyBytes: body ? parseSize(body[0], body[1]) : DEFAULT_MAX_BODY_BYTES,
    maxReadBytes: read ? parseSize(read[0], read[1]) : DEFAULT_MAX_READ_BYTES,
  };
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration with its unit (500ms, 90s, 5m, 2h, or several: 1h30m), from 1 s to 7 days. */
export function parseDuration(value: string, name: string): number {
  const text = value.trim().toLowerCase();
  let ms = 0;
  let rest = text;
  while (rest !== "") {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)/.exec(rest);
    if (!m) {
      ms = NaN;
      break;
    }
    ms += Number(m[1]) * DURATION_UNITS[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  if (text === "" || !(ms >= 1000) || ms > 7 * 24 * 3_600_000) {
    throw new UsageError(
      `${name} must be a duration with its unit, from 1s to 7 days (90s, 5m, 1h30m), got "${value}"`,
    );
  }
  return Math.round(ms);
}

const SIZE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** A size in bytes (a plain number) or with a unit (512KiB, 64MiB, 1GiB, 10MB), from 1 KiB to 4 GiB. */
export function parseSize(value: string, name: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m?.[2]?.toLowerCase() ?? "";
  const bytes = m && Object.hasOwn(SIZE_UNITS, unit) ? Math.floor(Number(m[1]) * SIZE_UNITS[unit]!) : NaN;
  if (!(bytes >= 1024) || bytes > 4 * 1024 ** 3) {
    throw new UsageError(
      `${name} must be a size from 1KiB to 4GiB (bytes, or with a unit: 512KiB, 64MiB, 1GiB), got "${value}"`,
    );
  }
  return bytes;
}
