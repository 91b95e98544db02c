// What the server and the admin API share for one running emulator.
import type { Clock } from "./clock.js";
import type { FaultStore } from "./faults.js";
import type { SlidingWindowLimiter } from "./rate-limit.js";
import type { Router } from "./router.js";
import type { EmulatorState, RequestLogEntry } from "./types.js";

export interface EmulatorRuntime {
  state: EmulatorState;
  initialState: () => EmulatorState;
  latencyMs: number;
  faults: FaultStore;
  limiter: SlidingWindowLimiter;
  requests: RequestLogEntry[];
  router: Router;
  /** The emulator's clock (ms since the epoch): what it dates, stamps and checks tokens against. */
  clock: Clock;
  bodyTimeoutMs: number;
}
