// Stopping the run: a signal (stop()), the run's deadline (--deadline), a wait the API asks for beyond the cap
// (--max-wait), the read budget, or a cause every call shares. Once stopped no attempt is sent: what was told to
// abort on a stop (the rate limiter, the slots) refuses every call waiting there, every backoff pause ends at once,
// and attempts already on the wire finish (bounded by their timeout). The first stop's error is the run's.
import { EXIT, RunStoppedError } from "../errors.js";
import { formatWait } from "./rate-limiter.js";

export interface RunStopOptions {
  /** The clock of the deadline. */
  now: () => number;
  /** Longest wait the API may ask for (--max-wait), for waitTooLong's message. */
  maxWaitMs: number;
  /** Milliseconds from now after which nothing new is sent (--deadline). */
  deadlineMs?: number;
  /** Verbose log; told once, when the run stops. */
  log?: (line: string) => void;
  /** Hides secrets in the header a message quotes. */
  redact: (text: string) => string;
}

/** What refuses its waiting callers once the run is stopped (RateLimiter, Semaphore). */
export interface Abortable {
  abort(err: Error): void;
}

export class RunStop {
  private reason: RunStoppedError | undefined;
  private readonly wakeups = new Set<() => void>();
  private readonly abortables: Abortable[] = [];
  private readonly deadlineAt: number | undefined;
  private readonly deadlineTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: RunStopOptions) {
    const { deadlineMs } = o;
    this.deadlineAt = deadlineMs === undefined ? undefined : o.now() + deadlineMs;
    this.deadlineTimer = deadlineMs === undefined ? undefined : setTimeout(() => this.deadlinePassed(), deadlineMs);
    this.deadlineTimer?.unref();
  }

  /** Why the run was stopped, or undefined. */
  stopped(): RunStoppedError | undefined {
    return this.reason;
  }

  /** `targets` are aborted with the stop's error, in this order, when the run stops. */
  abortOnStop(...targets: Abortable[]): void {
    this.abortables.push(...targets);
  }

  /** Stops the run with `err`, unless it is stopped already. */
  stop(err: RunStoppedError): void {
    if (this.reason) return;
    this.reason = err;
    this.o.log?.(`stopping: ${err.message}`);
    clearTimeout(this.deadlineTimer);
    for (const target of this.abortables) target.abort(err);
    for (const wake of [...this.wakeups]) wake();
  }

  /** Stops the run because the API asked to wait `ms` (as `header` says), longer than the cap. */
  stopForWait(ms: number, header: string): void {
    this.stop(this.waitTooLong(ms, header));
  }

  /**
   * Throws the stop's error once the run is stopped, or once its deadline has passed (whether or not the timer has
   * fired).
   */
  assertRunning(): void {
    if (!this.reason && this.deadlineAt !== undefined && this.o.now() >= this.deadlineAt) this.deadlinePassed();
    if (this.reason) throw this.reason;
  }

  /** Sleeps `ms`, or less when the run is stopped. */
  pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeups.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeups.add(done);
    });
  }

  /** The deadline's timer is no longer needed (the client is closed). */
  close(): void {
    clearTimeout(this.deadlineTimer);
  }

  private waitTooLong(ms: number, header: string): RunStoppedError {
    return new RunStoppedError(
      `the API asked to wait ${formatWait(ms)} (${this.o.redact(header)}), longer than the ` +
        `${formatWait(this.o.maxWaitMs)} zoneform waits at most (--max-wait); ` +
        "stopped at once, sending nothing more. Try again later: the rate-limit budget is shared with the " +
        "dashboard and every tool using this token",
      EXIT.error,
      "wait",
    );
  }

  private deadlinePassed(): void {
    this.stop(
      new RunStoppedError(
        "the run's deadline (--deadline) passed: zoneform sent nothing more, and let the requests already sent finish",
        EXIT.deadline,
        "deadline",
      ),
    );
  }
}
