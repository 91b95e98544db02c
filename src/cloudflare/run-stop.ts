// Stopping the run: a signal, --deadline, a wait beyond --max-wait, the read budget or a shared cause. Once
// stopped nothing more is sent and waiters are refused; the first stop's error is the run's.
// Spec: docs/commands/README.md, Bounds.
import { EXIT, RunStoppedError } from "../errors.js";
import { formatWait } from "./rate-limiter.js";

export interface RunStopOptions {
  now: () => number;
  maxWaitMs: number;
  deadlineMs?: number;
  log?: (line: string) => void;
  redact: (text: string) => string;
}

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

  stopped(): RunStoppedError | undefined {
    return this.reason;
  }

  abortOnStop(...targets: Abortable[]): void {
    this.abortables.push(...targets);
  }

  stop(err: RunStoppedError): void {
    if (this.reason) return;
    this.reason = err;
    this.o.log?.(`stopping: ${err.message}`);
    clearTimeout(this.deadlineTimer);
    for (const target of this.abortables) target.abort(err);
    for (const wake of [...this.wakeups]) wake();
  }

  stopForWait(ms: number, header: string): void {
    this.stop(this.waitTooLong(ms, header));
  }

  assertRunning(): void {
    if (!this.reason && this.deadlineAt !== undefined && this.o.now() >= this.deadlineAt) this.deadlinePassed();
    if (this.reason) throw this.reason;
  }

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
