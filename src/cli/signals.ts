// SIGINT (Ctrl+C) and SIGTERM during a command that writes (`apply`, `waf-migration start`, `logpush challenge`).
// Spec: docs/commands/apply.md.
import type { CloudflareClient } from "../cloudflare/index.js";
import { EXIT, RunStoppedError, ZoneformError } from "../errors.js";
import { printable } from "../safe-text.js";
import type { CommandContext } from "./command.js";
import type { CliIO } from "./io.js";

/** The exit code after a signal: 128 + its number (README "Exit codes"). */
export function signalExit(signal: NodeJS.Signals): number {
  return signal === "SIGTERM" ? EXIT.sigterm : EXIT.sigint;
}

/**
 * What a command that was stopped by `signal` throws instead of `err`: the same message with the signal's exit code,
 * so that a run a signal stopped part-way ends as every stopped run does (its report tells the rest).
 */
export function withSignalCode(err: unknown, signal: NodeJS.Signals | undefined): unknown {
  if (signal === undefined || !(err instanceof ZoneformError) || err.exitCode === signalExit(signal)) return err;
  return new RunStoppedError(err.message, signalExit(signal), "signal");
}

/** What the writes made so far, for the second signal's line. */
export interface Tally {
  made: number;
  failed: number;
  total: number;
}

/** What is shown while the writes run (the progress line): ended at the first signal. */
interface Shown {
  end(): void;
}

export interface SignalGuard {
  writesBegin(client: CloudflareClient, tally: () => Tally, shown?: Shown): void;
  stopping(): boolean;
  signal(): NodeJS.Signals | undefined;
  end(): void;
}

/**
 * The report of a second signal: the changes of the run, each counted once, in four counts that add up to the total
 * (made, failed, sent but unanswered, not made), then the unanswered writes one a line.
 */
export function stoppedAtOnce(t: Tally, pending: ReadonlyArray<{ method: string; path: string }>): string {
  const open = Math.max(0, t.total - t.made - t.failed);
  const unanswered = Math.min(pending.length, open);
  const notMade = open - unanswered;
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  return (
    `Stopped at once by a second signal. Of ${n(t.total, "change")}: ${t.made} made, ${t.failed} failed, ` +
    `${unanswered} sent but unanswered (they may or may not have landed), ${notMade} not made. ` +
    "Nothing was sent after the first signal.\n" +
    pending.map((r) => `  unknown  ${printable(`${r.method} ${r.path}`)}\n`).join("") +
    "Run `zoneform plan` to see the live state.\n"
  );
}

/** Installs the handlers: until `writesBegin`, a signal stops the process at once. */
export function guardSignals(io: CliIO): SignalGuard {
  let received: NodeJS.Signals | undefined;
  let onSignal: (signal: NodeJS.Signals) => void = (signal) => {
    io.stderr.write(
      `\n${signal === "SIGINT" ? "Interrupted" : `Stopped by ${signal}`} before any change was made; ` +
        `nothing was written.\n`,
    );
    process.exit(signalExit(signal));
  };
  const handler = (signal: NodeJS.Signals) => onSignal(signal);
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return {
    writesBegin(client, tally, shown) {
      const writesOnTheWire = () => (client.onTheWire?.() ?? []).filter((r) => r.method !== "GET");
      onSignal = (signal) => {
        const code = signalExit(signal);
        if (received === undefined) {
          received = signal;
          const sent = writesOnTheWire();
          client.stop?.(
            new RunStoppedError(signal === "SIGINT" ? "interrupted (SIGINT)" : `stopped by ${signal}`, code, "signal"),
          );
          // The progress line stops here: the outcome lines below must not land beside a redrawn one.
          shown?.end();
          io.stderr.write(
            `\n${signal === "SIGINT" ? "Interrupt (SIGINT)" : signal} received: sending nothing more; waiting ` +
              `for the ${sent.length} write(s) already sent to be answered (each within --timeout). Press Ctrl+C ` +
              `again to stop at once.\n`,
          );
          for (const r of sent) {
            void r.settled.then((o) =>
              io.stderr.write(`  ${o.result.padEnd(8)} ${printable(`${r.method} ${r.path}`)} (${o.detail})\n`),
            );
          }
          return;
        }
        const pending = writesOnTheWire();
        shown?.end();
        io.stderr.write(stoppedAtOnce(tally(), pending));
        process.exit(code);
      };
    },
    stopping: () => received !== undefined,
    signal: () => received,
    end() {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    },
  };
}

/**
 * A guided command's run (`waf-migration start`, `logpush challenge`: one change, made by the engine's executeOne
 * inside `write`): signals as above.
 */
export async function guidedRun(
  ctx: CommandContext,
  run: (
    guard: SignalGuard,
    write: <T>(client: CloudflareClient, make: () => Promise<T>) => Promise<T>,
  ) => Promise<void>,
): Promise<void> {
  const guard = guardSignals(ctx.io);
  const write = async <T>(client: CloudflareClient, make: () => Promise<T>): Promise<T> => {
    let state: "sending" | "made" | "failed" = "sending";
    guard.writesBegin(client, () => ({ made: state === "made" ? 1 : 0, failed: state === "failed" ? 1 : 0, total: 1 }));
    try {
      const result = await make();
      state = "made";
      return result;
    } catch (err) {
      // The client refuses a call none of whose attempts reached the API: then nothing was sent.
      if (err instanceof RunStoppedError && err.reason === "signal") {
        throw new RunStoppedError(
          `${err.message} before the write was sent; nothing was written`,
          err.exitCode,
          "signal",
        );
      }
      state = "failed";
      throw err;
    }
  };
  try {
    await run(guard, write);
  } catch (err) {
    throw withSignalCode(err, guard.signal());
  } finally {
    guard.end();
  }
  const signal = guard.signal();
  if (signal !== undefined) {
    ctx.io.stderr.write(`Stopped by ${signal}: the write sent before it was made; nothing more was sent.\n`);
    ctx.setExit(signalExit(signal));
  }
}
