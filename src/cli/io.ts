// What a command may touch of the outside world: streams, environment, working directory. Tests pass
// their own to run `main(argv, io)` in-process and read what was printed.
import process from "node:process";
import { Redactor } from "../redact.js";

export interface Output {
  write(text: string): void;
  readonly isTTY: boolean;
}

export interface CliIO {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Reads one line from the user (apply's "yes"), or undefined when stdin is not a terminal. */
  prompt?: (question: string) => Promise<string>;
  /** Lets a long-running command (the emulator) stay up until this resolves. */
  waitForShutdown?: () => Promise<void>;
  /** Secret values known so far; everything written to stdout and stderr is redacted with it. */
  secrets?: Redactor;
}

/** zoneform's own credentials: hidden wherever they appear. */
const CREDENTIAL_ENV = ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY"];

/**
 * Wraps an IO so that no secret reaches the terminal: the API token and key, and the values the
 * configuration took from `${env:…}` (added as it loads; see Redactor for short values), and secret
 * URL parameters. Environment variables zoneform never used are never hidden.
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
  });
  return { ...io, stdout: wrap(io.stdout), stderr: wrap(io.stderr), secrets };
}

function streamOutput(stream: NodeJS.WriteStream): Output {
  return {
    write: (text) => {
      stream.write(text);
    },
    get isTTY() {
      return Boolean(stream.isTTY);
    },
  };
}

export function processIO(): CliIO {
  return {
    stdout: streamOutput(process.stdout),
    stderr: streamOutput(process.stderr),
    env: process.env,
    cwd: process.cwd(),
    prompt: process.stdin.isTTY
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
    waitForShutdown: () =>
      new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      }),
  };
}

/** An in-memory IO for tests: everything written is kept. */
export function memoryIO(opts: { env?: NodeJS.ProcessEnv; cwd?: string; answers?: string[]; tty?: boolean } = {}) {
  let out = "";
  let err = "";
  const answers = [...(opts.answers ?? [])];
  const io: CliIO = {
    stdout: { write: (t) => void (out += t), isTTY: Boolean(opts.tty) },
    stderr: { write: (t) => void (err += t), isTTY: Boolean(opts.tty) },
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
