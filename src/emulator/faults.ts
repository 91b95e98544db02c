// Fault injection for resilience tests: a fault matches requests by method and path regex and answers
// an error, delays, or destroys the socket, for `count` requests or with a (seedable) probability.
// `after: true` runs the handler first, so the write happens and the client sees a failure anyway:
// the ambiguous outcome a retrying client must handle by re-reading.
import { createRng } from "./ids.js";

export interface FaultSpec {
  method?: string;
  /** Regex tested against the path after `/client/v4/` (no query string). */
  path?: string;
  status?: number;
  code?: number;
  message?: string;
  retry_after?: number;
  delay_ms?: number;
  reset?: boolean;
  count?: number;
  probability?: number;
  seed?: number;
  after?: boolean;
}

export interface Fault extends FaultSpec {
  id: string;
  /** Times it has fired. */
  fired: number;
}

interface ActiveFault {
  fault: Fault;
  regex?: RegExp;
  random: () => number;
}

export class FaultStore {
  private faults: ActiveFault[] = [];
  private nextId = 1;

  /** Adds a fault; throws a SyntaxError for a bad regex (the admin API turns it into a 400). */
  add(spec: FaultSpec): Fault {
    const fault: Fault = { ...spec, id: `fault-${this.nextId++}`, fired: 0 };
    this.faults.push({
      fault,
      regex: spec.path === undefined ? undefined : new RegExp(spec.path),
      random: spec.seed === undefined ? Math.random : createRng(spec.seed),
    });
    return fault;
  }

  clear(): void {
    this.faults = [];
  }

  list(): Fault[] {
    return this.faults.map((f) => f.fault);
  }

  /** The first fault of this phase that fires for the request, consuming one of its `count`. */
  take(method: string, path: string, phase: "before" | "after"): Fault | undefined {
    for (const active of this.faults) {
      const f = active.fault;
      if (Boolean(f.after) !== (phase === "after")) continue;
      if (f.count !== undefined && f.fired >= f.count) continue;
      if (f.method && f.method.toUpperCase() !== method) continue;
      if (active.regex && !active.regex.test(path)) continue;
      if (f.probability !== undefined && active.random() >= f.probability) continue;
      f.fired++;
      return f;
    }
    return undefined;
  }
}
