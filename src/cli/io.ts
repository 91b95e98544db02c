// What a command may touch of the outside world: streams, environment, working directory.
import process from "node:process";
import { isatty } from "node:tty";
import { Redactor } from "../redact.js";
import type { Env } from "../model/index.js";

export interface Output {
  write(text: string): void;
  readonly isTTY: boolean;
  readonly columns?: number;
}

export interface CliIO {
  stdout: Output;
  stderr: Output;
  env: Env;
  cwd: string;
  prompt?: (question: string) => Promise<string>;
  waitForShutdown?: () => Promise<void>;
  secrets?: Redactor;
}

const CREDENTIAL_ENV = ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY"];

/**
 * Wraps an IO so that no secret reaches the terminal: the API token and key, and the values the configuration took
 * from `${env:…}` (added as it loads; see Redactor for short values), and secret URL parameters.
 */
export function redactingIO(io: CliIO, opts: { keepEnv?: string[] } = {}): CliIO {
  const secrets = io.secrets ?? new Redactor();
  for (const name of CREDENTIAL_ENV) {
    const value = io.env[name];
    if (value && !opts.keepEnv?.includes(name)) secrets.add(value);
  }
  const wrap = (out: Output): Output => ({
    write: (text) => out.write(secrets.redact(text)),
    get isTTY() {
      return out.isTTY;
    },
    get columns() {
      return out.columns;
    },
  });
  return { ...io, stdout: wrap(io.stdout), stderr: wrap(io.stderr), secrets };
}

/** Hides the values of these variables (a configuration's references, its tokens) in all the IO writes. */
export function hideVariables(io: Pick<CliIO, "env" | "secrets">, names: Iterable<string>): void {
  for (const name of names) {
    const value = Object.hasOwn(io.env, name) ? io.env[name] : undefined;
    if (value) io.secrets?.add(value);
  }
}

const READER_GONE = new Set(["EPIPE", "ECONNRESET", "ERR_STREAM_DESTROYED", "EOF"]);

let outputFailure: NodeJS.ErrnoException | undefined;

/** A write to stdout or stderr failed for a reason other than its reader going away (a full disk). */
export function outputFailed(): NodeJS.ErrnoException | undefined {
  return outputFailure;
}

/**
 * A standard stream that never crashes the process: once its reader has gone (EPIPE), further writes are dropped and
 * the command finishes its work quietly, with its own exit code (README "Exit codes").
 */
function streamOutput(stream: NodeJS.WriteStream): Output {
  let gone = false;
  stream.on("error", (err: NodeJS.ErrnoException) => {
    gone = true;
    if (!READER_GONE.has(err.code ?? "")) outputFailure ??= err;
  });
  return {
    write: (text) => {
      if (gone || stream.destroyed || !stream.writable) return;
      try {
        stream.write(text);
      } catch {
        gone = true;
      }
    },
    get isTTY() {
      return Boolean(stream.isTTY);
    },
    get columns() {
      return stream.isTTY ? stream.columns : undefined;
    },
  };
}

const SHUTDOWN_SIGNALS: NodeJS.Signals[] =
  process.platform === "win32" ? ["SIGINT", "SIGTERM"] : ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * @public scripts/bench/measure.mjs imports it from dist/ (knip cannot follow that path).
 */
export function processIO(): CliIO {
  return {
    stdout: streamOutput(process.stdout),
    stderr: streamOutput(process.stderr),
    env: process.env,
    cwd: process.cwd(),
    // isatty(0), not process.stdin.isTTY: that would open a stream on stdin for every command.
    prompt: isatty(0)
      ? async (question) => {
          const { createInterface } = await import("node:readline/promises");
          const rl = createInterface({ input: process.stdin, output: process.stderr });
          try {
            return await rl.question(question);
          } finally {
            rl.close();
          }
        }
      : undefined,
    // Ctrl+C, `kill`, and the terminal closing (SIGHUP) all stop it the same way.
    waitForShutdown: () =>
      new Promise<void>((resolve) => {
        for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => resolve());
      }),
  };
}

/** An in-memory IO for tests: everything written is kept. */
export function memoryIO(opts: { env?: Env; cwd?: string; answers?: string[]; tty?: boolean; columns?: number } = {}) {
  let out = "";
  let err = "";
  const answers = [...(opts.answers ?? [])];
  const io: CliIO = {
    stdout: { write: (t) => void (out += t), isTTY: Boolean(opts.tty), columns: opts.columns },
    stderr: { write: (t) => void (err += t), isTTY: Boolean(opts.tty), columns: opts.columns },
    env: opts.env ?? {},
    cwd: opts.cwd ?? process.cwd(),
    prompt: opts.answers ? async () => answers.shift() ?? "" : undefined,
  };
  return {
    io,
    stdout: () => out,
    stderr: () => err,
  };
}
