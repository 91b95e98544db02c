// `zoneform emulator`: run the local Cloudflare API stand-in until SIGINT, SIGTERM or SIGHUP.
// Spec: docs/commands/emulator.md.
import { existsSync } from "node:fs";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { INSTANT_EXPECTED, NOW_ENV, readInstant } from "../../instant.js";
import { ConfigError, RuntimeError, UsageError } from "../../errors.js";
import {
  DEFAULT_TOKEN,
  defaultState,
  normalizeState,
  startEmulator,
  StateDocumentError,
  type EmulatorState,
  type RunningEmulator,
} from "../../emulator/index.js";
import type { CommandContext } from "../command.js";
import { fileOption } from "../options.js";
import { type CommandTable, collectEach, commandFromTable } from "../option-table.js";

/** Port of `zoneform emulator` when --port is not given (`--port 0` picks a free one). */
export const DEFAULT_EMULATOR_PORT = 8787;

interface EmulatorOptions {
  port: string;
  host: string;
  state?: string;
  latency?: string;
  token?: string[];
  urlFile?: string;
  now?: string;
}

const EMULATOR: CommandTable = {
  name: "emulator",
  description: "Run a local, faithful Cloudflare API for tests, demos and dry runs (prints its base URL first).",
  options: [
    {
      flags: "--port <n>",
      description: "port to listen on (0 = any free port)",
      default: String(DEFAULT_EMULATOR_PORT),
    },
    { flags: "--host <host>", description: "interface to listen on", default: "127.0.0.1" },
    fileOption(
      "--state <file>",
      "load the state from this JSON file if it exists (else the seed); save it back on exit",
    ),
    { flags: "--latency <ms>", description: "delay every API answer by this many milliseconds" },
    { flags: "--token <token>", description: "accept this API token too (repeatable)", parse: collectEach },
    fileOption("--url-file <file>", "write the base URL to this file (atomically) once listening; removed on exit"),
    {
      flags: "--now <instant>",
      description:
        `start the emulator's clock at this instant, e.g. 2026-11-25T12:00:00Z (ISO 8601; default ${NOW_ENV}, ` +
        `else the system clock)`,
    },
  ],
};

export function register(program: Command, ctx: CommandContext): void {
  commandFromTable(program, EMULATOR).action((opts: EmulatorOptions) => runEmulator(opts, ctx));
}

async function runEmulator(opts: EmulatorOptions, ctx: CommandContext): Promise<void> {
  const port = parseInteger("--port", opts.port, 0, 65_535);
  const now = parseNow(opts.now, ctx.io.env[NOW_ENV]);
  const latencyMs = opts.latency === undefined ? 0 : parseInteger("--latency", opts.latency, 0, 600_000);
  const statePath = opts.state === undefined ? undefined : path.resolve(ctx.io.cwd, opts.state);
  const state = statePath ? await loadState(statePath, now) : defaultState({ now });
  for (const token of opts.token ?? []) {
    if (!state.credentials.tokens.includes(token)) state.credentials.tokens.push(token);
  }
  const urlFile = opts.urlFile === undefined ? undefined : path.resolve(ctx.io.cwd, opts.urlFile);
  const emulator = await listen({ port, host: opts.host, latencyMs, state, now });
  const token = opts.token?.[0] ?? DEFAULT_TOKEN;
  const { io } = ctx;
  if (urlFile) {
    try {
      await writeAtomically(urlFile, `${emulator.url}\n`);
    } catch (err) {
      await emulator.close();
      throw new RuntimeError(`--url-file ${urlFile}: cannot write it (${(err as Error).message})`);
    }
  }
  io.stdout.write(`${emulator.url}\n`);
  io.stdout.write(
    `Ready: token ${token} (or X-Auth-Email user@example.com + X-Auth-Key emulator-key); admin API ` +
      `${emulator.adminUrl}\n`,
  );
  io.stdout.write(`export CLOUDFLARE_API_BASE_URL=${emulator.url} CLOUDFLARE_API_TOKEN=${token}\n`);
  io.stderr.write(statePath ? `State file: ${statePath} (saved on exit). ` : "");
  io.stderr.write("Stop with Ctrl+C.\n");
  try {
    await (io.waitForShutdown?.() ?? Promise.resolve());
  } finally {
    // However it stops, the state is saved: a failed close must not skip the save.
    await emulator.close().catch((err: Error) => io.stderr.write(`Warning: closing the emulator: ${err.message}\n`));
    if (urlFile) await rm(urlFile, { force: true }).catch(() => undefined);
    if (statePath) {
      await saveState(statePath, emulator.state());
      io.stderr.write(`Saved the emulator state to ${statePath}\n`);
    }
  }
}

async function listen(opts: {
  port: number;
  host: string;
  latencyMs: number;
  state: EmulatorState;
  now?: number;
}): Promise<RunningEmulator> {
  try {
    return await startEmulator(opts);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const where = `port ${opts.port} on ${opts.host}`;
    const pick = "pick another with --port, or --port 0 for any free port";
    if (code === "EADDRINUSE")
      throw new RuntimeError(`${where} is in use: address already in use (EADDRINUSE); ${pick}`);
    if (code === "EACCES")
      throw new RuntimeError(
        `${where} is not allowed: permission denied (EACCES; ports below 1024 need privileges); ${pick}`,
      );
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
      throw new UsageError(
        `--host ${opts.host}: cannot listen there (${code}); give an address of this machine, such as ` +
          `127.0.0.1 or 0.0.0.0`,
      );
    }
    throw err;
  }
}

function parseNow(flag: string | undefined, env: string | undefined): number | undefined {
  const [label, text] = flag !== undefined ? ["--now", flag] : [NOW_ENV, env === "" ? undefined : env];
  if (text === undefined) return undefined;
  const r = readInstant(text);
  if ("problem" in r) {
    const detail = r.detail ? `; ${r.detail}` : "";
    throw new UsageError(`${label} ${JSON.stringify(text)}: expected ${INSTANT_EXPECTED}${detail}`);
  }
  return r.ms;
}

function parseInteger(flag: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
}

async function loadState(file: string, now: number | undefined): Promise<EmulatorState> {
  if (!existsSync(file)) return defaultState({ now });
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new RuntimeError(`--state ${file}: not readable JSON (${(err as Error).message})`);
  }
  try {
    return normalizeState(doc);
  } catch (err) {
    if (!(err instanceof StateDocumentError)) throw err;
    throw new ConfigError(
      err.problems.map((message) => ({ file, line: 1, column: 1, pointer: "", message })),
      `--state ${file} is not a valid emulator state:\n${err.problems.map((p) => `  - ${p}`).join("\n")}`,
    );
  }
}

/** Writes through a temporary file so an interrupted save never leaves half a state behind. */
async function saveState(file: string, state: EmulatorState): Promise<void> {
  await writeAtomically(file, `${JSON.stringify(state, null, 2)}\n`);
}

/** A reader of `file` sees either nothing or all of `text`, never part of it. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}
