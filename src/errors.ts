// Error classes of zoneform.
import { printable } from "./safe-text.js";

/** Documented exit codes (README "Exit codes"). */
export const EXIT = {
  ok: 0,
  error: 1,
  changes: 2,
  invalid: 3,
  partial: 4,
  /** The run passed its --deadline (as GNU `timeout`). */
  deadline: 124,
  /** Stopped by SIGINT (Ctrl+C) or SIGTERM: 128 + the signal's number. */
  sigint: 130,
  sigterm: 143,
} as const;

export abstract class ZoneformError extends Error {
  abstract readonly exitCode: number;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** One problem found in a desired-state file, with where it is. */
export interface ConfigProblem {
  file: string;
  line: number;
  column: number;
  pointer: string;
  message: string;
  severity?: "error" | "warning";
}

const MAX_SHOWN_POINTER = 160;

function shownPointer(pointer: string): string {
  if (pointer.length <= MAX_SHOWN_POINTER) return pointer || "/";
  const segments = pointer.slice(1).split("/");
  const head: string[] = [];
  const tail: string[] = [];
  let room = MAX_SHOWN_POINTER / 2;
  for (const s of segments) {
    if (room - s.length - 1 < 0 && head.length > 0) break;
    head.push(s);
    room -= s.length + 1;
  }
  room = MAX_SHOWN_POINTER / 2;
  for (let i = segments.length - 1; i >= head.length; i--) {
    const s = segments[i]!;
    if (room - s.length - 1 < 0 && tail.length > 0) break;
    tail.unshift(s);
    room -= s.length + 1;
  }
  const left = segments.length - head.length - tail.length;
  if (left <= 0) return pointer;
  return `/${head.join("/")}/…(${left} levels)…/${tail.join("/")}`;
}

export function formatProblem(p: ConfigProblem): string {
  const where = `${p.file}:${p.line}:${p.column}`;
  const kind = p.severity === "warning" ? "warning: " : "";
  return printable(`${where}  ${shownPointer(p.pointer)}  ${kind}${p.message}`);
}

/** The desired-state file (or a flag that names it) is invalid: exit 3. */
export class ConfigError extends ZoneformError {
  readonly exitCode = EXIT.invalid;
  constructor(
    readonly problems: ConfigProblem[],
    summary?: string,
  ) {
    super(
      summary ??
        `${problems.length} problem${problems.length === 1 ? "" : "s"} in the configuration:\n` +
          problems.map((p) => `  ${formatProblem(p)}`).join("\n"),
    );
  }
}

/** Bad command-line usage (unknown flag, missing argument): exit 3, like an invalid file. */
export class UsageError extends ZoneformError {
  readonly exitCode = EXIT.invalid;
}

export class RuntimeError extends ZoneformError {
  readonly exitCode = EXIT.error;
}

/** No credentials, or credentials of the wrong form, in the environment. */
export class CredentialsError extends ZoneformError {
  readonly exitCode = EXIT.error;
}

export interface ApiErrorDetail {
  code?: number;
  message: string;
  pointer?: string;
  documentation_url?: string;
}

export class ApiError extends ZoneformError {
  readonly exitCode = EXIT.error;
  constructor(
    message: string,
    readonly info: {
      status: number;
      method: string;
      path: string;
      errors: ApiErrorDetail[];
      retryable: boolean;
      retryAfterMs?: number;
      envelope?: boolean;
      retries?: number;
    },
  ) {
    super(message);
  }
  get status(): number {
    return this.info.status;
  }
  isRetryable(): boolean {
    return this.info.retryable;
  }
  isNotFound(): boolean {
    return this.info.envelope === true && (this.info.status === 404 || this.info.errors.some((e) => e.code === 10003));
  }
}

export class AnswerShapeError extends ZoneformError {
  readonly exitCode = EXIT.error;
}

/** A request got no usable answer (connection reset, timeout) after the retries allowed. */
export class NetworkError extends ZoneformError {
  readonly exitCode = EXIT.error;
  constructor(
    message: string,
    readonly info: { method: string; path: string; ambiguous: boolean; cause?: string; retries?: number },
  ) {
    super(message);
  }
}

export class UnsafePlanError extends ZoneformError {
  readonly exitCode = EXIT.error;
}

/** A saved plan no longer matches the live zone: nothing was written. */
export class StalePlanError extends ZoneformError {
  readonly exitCode = EXIT.error;
  constructor(
    message: string,
    readonly changed: string[],
  ) {
    super(message);
  }
}

/** Apply stopped part-way: some operations were made, some not. */
export class ApplyError extends ZoneformError {
  readonly exitCode = EXIT.partial;
  constructor(
    message: string,
    readonly report: { done: string[]; failed: string[]; notDone: string[]; uncertain: string[] },
  ) {
    super(message);
  }
}

export class RunStoppedError extends ZoneformError {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly reason: "signal" | "deadline" | "wait" | "cause",
  ) {
    super(message);
  }
}
