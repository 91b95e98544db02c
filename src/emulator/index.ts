// Public entry of the emulator (`zoneform/emulator`).
// Spec: docs/emulator.md.
import type { AddressInfo } from "node:net";
import { clockOf, instantOf, type EmulatorNow } from "./clock.js";
import { FaultStore } from "./faults.js";
import { DEFAULT_BODY_TIMEOUT_MS } from "./http-util.js";
import { SlidingWindowLimiter } from "./rate-limit.js";
import { Router } from "./router.js";
import { AREAS } from "./areas/index.js";
import { defaultState } from "./seed.js";
import type { EmulatorRuntime } from "./runtime.js";
import { createEmulatorServer } from "./server.js";
import type { EmulatorState } from "./types.js";

export { defaultState, DEFAULT_EMAIL, DEFAULT_KEY, DEFAULT_TOKEN, SEED_ACCOUNT_ID } from "./seed.js";
export { normalizeState, StateDocumentError } from "./state-file.js";
export {
  recordedPath,
  RecordedAnswerError,
  stateFromRecorded,
  type RecordedAnswer,
  type RecordedOptions,
} from "./recorded.js";
export { zoneIdFor } from "./ids.js";
export { generateInventory } from "./areas/page_shield/inventory.js";
export type { EmulatorNow } from "./clock.js";
export type { RequestLogEntry } from "./types.js";
export type { FaultSpec } from "./faults.js";
export * from "./types.js";

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Starting state (kept as given; `reset` returns to a copy of it). */
  state?: EmulatorState;
  /**
   * The emulator's clock: the instant it reads at start (Date, ISO 8601 text such as `2026-11-25T12:00:00Z`, or
   * ms since the epoch), running on from there in real time, or a function it asks each time.
   */
  now?: EmulatorNow;
  /** Delay before every API answer. */
  latencyMs?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** How long a request body may take to arrive once its headers are in (default 30 s): then a 408. */
  bodyTimeoutMs?: number;
}

export interface RunningEmulator {
  /** e.g. `http://127.0.0.1:8787/client/v4` */
  url: string;
  /** e.g. `http://127.0.0.1:8787/__emulator` */
  adminUrl: string;
  port: number;
  state(): EmulatorState;
  close(): Promise<void>;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const clock = clockOf(opts.now);
  // The seed is dated at the very instant given (a running clock has moved on by a millisecond or two).
  const seedAt = opts.now === undefined || typeof opts.now === "function" ? clock() : instantOf(opts.now);
  const start = opts.state ?? defaultState({ now: seedAt });
  // A snapshot, so reset returns to the starting point even after the live state has changed.
  const snapshot = JSON.stringify(start);
  const rt: EmulatorRuntime = {
    state: start,
    initialState: () => JSON.parse(snapshot) as EmulatorState,
    latencyMs: opts.latencyMs ?? 0,
    faults: new FaultStore(),
    limiter: new SlidingWindowLimiter(),
    requests: [],
    router: new Router(
      AREAS.flatMap((a) => a.routes),
      Object.assign({}, ...AREAS.map((a) => a.idParams ?? {})),
    ),
    clock,
    bodyTimeoutMs: opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
  };
  const server = createEmulatorServer(rt);
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const origin = `http://${shownHost}:${port}`;
  return {
    url: `${origin}/client/v4`,
    adminUrl: `${origin}/__emulator`,
    port,
    state: () => rt.state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
