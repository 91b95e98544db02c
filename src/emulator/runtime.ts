// What the server and the admin API share for one running emulator.
import type { Clock } from "./clock.js";
import type { FaultStore } from "./faults.js";
import type { SlidingWindowLimiter } from "./rate-limit.js";
import type { Router } from "./router.js";
import type { EmulatorState, RequestLogEntry } from "./types.js";

/** Everything the server and the admin API share. */
export interface EmulatorRuntime {
  state: EmulatorState;
  /** The state to return to on reset (a fresh copy each call). */
  initialState: () => EmulatorState;
  latencyMs: number;
  faults: FaultStore;
  limiter: SlidingWindowLimiter;
  requests: RequestLogEntry[];
  router: Router;
  /** The emulator's clock (ms since the epoch). */
  clock: Clock;
  /** How long a request body may take to arrive (http-util.ts readBody). */
  bodyTimeoutMs: number;
}
