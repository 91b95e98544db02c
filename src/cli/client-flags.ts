// The flags that shape how zoneform talks to the API, as a table, and their checks.
// Spec: docs/commands/README.md, flags for the API.
import type { Command } from "commander";
import {
  ALLOW_INSECURE_HTTP_ENV,
  DEFAULT_MAX_LIST_ITEMS,
  DEFAULT_MAX_LIST_PAGES,
  type RateLimit,
} from "../cloudflare/index.js";
import { UsageError } from "../errors.js";
import { addBoundOptions } from "./bounds.js";
import { addOptionRows, milliseconds, type OptionRow, wholeNumber } from "./option-table.js";

export const DEFAULT_PARALLELISM = 8;
export const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_PARALLELISM = 64;
export const DEFAULT_RETRIES = 6;
const MAX_RETRIES = 10;

const CLIENT_OPTIONS: OptionRow[] = [
  {
    flags: "--api-url <url>",
    description: "Cloudflare API base URL (env CLOUDFLARE_API_BASE_URL; default https://api.cloudflare.com/client/v4)",
  },
  {
    flags: "--allow-insecure-http",
    description:
      "send the credentials over plain http:// to a host that is not loopback " +
      `(env ${ALLOW_INSECURE_HTTP_ENV}=1); refused otherwise`,
  },
  {
    flags: "--parallelism <n>",
    description: `requests in flight at once (1-${MAX_PARALLELISM})`,
    parse: parseParallelism,
    default: DEFAULT_PARALLELISM,
  },
  {
    flags: "--rate-limit <n/s>",
    description: "at most N requests per S seconds for the whole run (default 1200/300, Cloudflare's limit)",
    parse: parseRateLimit,
  },
  {
    flags: "--timeout <ms>",
    description:
      "per-attempt timeout in ms, or with a unit (30s): the answer must be complete within it " +
      `(default ${DEFAULT_TIMEOUT_MS})`,
    parse: parseTimeout,
  },
  {
    flags: "--retries <n>",
    description:
      "retries of a failed read or of a write that was certainly not made " +
      `(0-${MAX_RETRIES}, default ${DEFAULT_RETRIES})`,
    parse: parseRetries,
  },
  {
    flags: "--max-list-items <n>",
    description:
      "most items one list may hold before the read is stopped " +
      `(env ZONEFORM_MAX_LIST_ITEMS; default ${DEFAULT_MAX_LIST_ITEMS})`,
  },
  {
    flags: "--max-list-pages <n>",
    description:
      "most pages one list may take before the read is stopped " +
      `(env ZONEFORM_MAX_LIST_PAGES; default ${DEFAULT_MAX_LIST_PAGES})`,
  },
];

export function addClientOptions(cmd: Command): Command {
  return addBoundOptions(addOptionRows(cmd, CLIENT_OPTIONS));
}

/** A list cap from its flag, else its environment variable, else the default. */
export function listCap(
  flag: number | string | undefined,
  env: string | undefined,
  flagName: string,
  envName: string,
  fallback: number,
): number {
  const [raw, from] =
    flag !== undefined
      ? [String(flag), flagName]
      : env !== undefined && env.trim() !== ""
        ? [env, envName]
        : [undefined, ""];
  if (raw === undefined) return fallback;
  const n = wholeNumber(raw, 1, Number.MAX_SAFE_INTEGER);
  if (n === undefined) throw new UsageError(`${from} must be a whole number of at least 1, got "${raw}"`);
  return n;
}

export function parseRetries(value: string): number {
  const n = wholeNumber(value, 0, MAX_RETRIES);
  if (n === undefined)
    throw new UsageError(`--retries must be a whole number from 0 to ${MAX_RETRIES}, got "${value}"`);
  return n;
}

export function parseParallelism(value: string): number {
  const n = wholeNumber(value, 1, MAX_PARALLELISM);
  if (n === undefined)
    throw new UsageError(`--parallelism must be a whole number from 1 to ${MAX_PARALLELISM}, got "${value}"`);
  return n;
}

/** `--rate-limit N/S`: N requests per S seconds (S may end in s or m: 1200/5m). */
export function parseRateLimit(value: string): RateLimit {
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*(s|m)?\s*$/i.exec(value);
  if (!m) throw new UsageError(`--rate-limit must be N/S, requests per seconds, e.g. 1200/300; got "${value}"`);
  const seconds = Number(m[2]) * (m[3]?.toLowerCase() === "m" ? 60 : 1);
  return checkRateLimit({ requests: Number(m[1]), seconds });
}

export function checkRateLimit(r: RateLimit): RateLimit {
  if (!Number.isInteger(r.requests) || r.requests < 1 || !(r.seconds > 0)) {
    throw new UsageError(
      `--rate-limit needs at least 1 request per a positive number of seconds, got ${r.requests}/${r.seconds}`,
    );
  }
  return r;
}

export function parseTimeout(value: string): number {
  const ms = milliseconds(value);
  if (!(ms >= 100) || ms > 600_000) {
    throw new UsageError(
      `--timeout must be a time from 100ms to 10m (plain numbers are milliseconds: 30000, or 30s), got "${value}"`,
    );
  }
  return ms;
}
