// The wire: what bounds one attempt's answer and what is known of the requests sent. An answer body is read up to
// `maxBodyBytes` and never decompressed (zoneform asks for none and refuses an encoded answer); each attempt has an
// overall deadline (the idle timeouts alone let a body that drips a byte now and then run forever); the answers to
// the run's reads take at most `maxReadBytes` in all (their bytes as they arrive, and what their objects and lists
// take once read), past which the run stops; an answer nested deeper than MAX_ANSWER_DEPTH is refused unread.
import type { IncomingHttpHeaders } from "node:http";
import type { Duplex } from "node:stream";
import type { Dispatcher } from "undici";
import { AnswerShapeError, EXIT, RunStoppedError } from "../errors.js";
import { jsonShape } from "../json-depth.js";
import { formatBytes } from "../read-file.js";
import type { Permit } from "./rate-limiter.js";
import { BODY_TOO_LARGE_CODE, DEADLINE_CODE, ENCODED_BODY_CODE, isNotSentError } from "./retry.js";
import type { RunStop } from "./run-stop.js";
import type { WireOutcome, WireRequest } from "./types.js";

/**
 * What one object or list of an answer is counted as on top of its text: about what it takes in memory once
 * parsed, so that an answer of many tiny ones (`[[{}],[{}],…]`, 25 times its text once read) is counted as it is.
 */
const ANSWER_CONTAINER_BYTES = 64;

/** Deepest nesting of an answer read: real answers nest 9 levels at most; deeper ones would overflow the stack. */
const MAX_ANSWER_DEPTH = 32;

/** An answer cut off because the run's answers went past maxReadBytes: the run is stopped, never retried. */
const READ_CAP_CODE = "ZONEFORM_READ_CAP";

/** What the answers to the run's reads (GET) take so far, against --max-read-bytes; past it the run stops. */
export class ReadBudget {
  private bytes = 0;
  constructor(
    private readonly max: number,
    private readonly run: RunStop,
  ) {}

  /** Counts `n` more bytes of the answers to reads; past the cap the run stops, and false says so. */
  charge(n: number): boolean {
    this.bytes += n;
    if (this.bytes <= this.max) return true;
    this.run.stop(
      new RunStoppedError(
        `the answers to this run's reads went past ${this.max} bytes (${formatBytes(this.max)}), the most ` +
          "zoneform holds in one run (--max-read-bytes, ZONEFORM_MAX_READ_BYTES); it stopped reading and sent " +
          "nothing more. If the zones really hold that much, raise the cap, e.g. --max-read-bytes 2GiB",
        EXIT.error,
        "wait",
      ),
    );
    return false;
  }

  /**
   * Before a read's answer is parsed: what its objects and lists will take counts against the cap, and a nesting
   * deeper than any real answer's is refused (what walks the value afterwards would overflow the stack).
   */
  checkAnswer(text: string, shownPath: () => string): void {
    const shape = jsonShape(text, MAX_ANSWER_DEPTH);
    if (!this.charge(shape.containers * ANSWER_CONTAINER_BYTES)) throw this.run.stopped()!;
    if (shape.tooDeepAt) {
      throw new AnswerShapeError(
        `GET ${shownPath()}: the answer nests deeper than ${MAX_ANSWER_DEPTH} levels (line ` +
          `${shape.tooDeepAt.line}, column ${shape.tooDeepAt.column}); no answer of the API does, so zoneform ` +
          "did not read it, and changed nothing",
      );
    }
  }
}

/** A request on the wire as its attempt tells it how it went. */
export interface WireEntry extends WireRequest {
  settle(status: number | undefined, err?: Error): void;
  end(): void;
}

/** The requests now on the wire, each until its answer or failure: what a stop waits for and reports. */
export class WireRequests {
  private readonly entries = new Set<WireEntry>();

  /**
   * A request sent now: `shown` gives its path as the log shows it (redacted), asked only when the requests on
   * the wire are listed (a stop's report): redacting every path as it is sent would cost each call for nothing.
   */
  open(method: string, shown: () => string): WireEntry {
    let resolve!: (o: WireOutcome) => void;
    const settled = new Promise<WireOutcome>((r) => (resolve = r));
    let done = false;
    const entries = this.entries;
    const entry: WireEntry = {
      method,
      get path() {
        return shown();
      },
      settled,
      settle(status: number | undefined, err?: Error) {
        if (done) return;
        done = true;
        resolve(outcomeOf(status, err));
      },
      end() {
        // Settled at its answer's start in all but a failure: an Error (and its stack) only when it was not.
        if (!done) entry.settle(undefined, new Error("ended"));
        entries.delete(entry);
      },
    };
    entries.add(entry);
    return entry;
  }

  list(): WireRequest[] {
    return [...this.entries].map(({ method, path, settled }) => ({ method, path, settled }));
  }
}

/**
 * Passes an attempt's events through, releasing its rate-limit permit on the answer, giving it an
 * overall deadline, cutting off a body past `maxBodyBytes` or one that is encoded (compressed), and telling the
 * request on the wire how it went.
 */
export class ObservingHandler implements Dispatcher.DispatchHandler {
  private timer: NodeJS.Timeout | undefined;
  private deadlineError: Error | undefined;
  private bytes = 0;
  private cut = false;
  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly permit: Permit,
    private readonly onAnswer: (status: number, headers: IncomingHttpHeaders) => void,
    private readonly deadlineMs: number,
    private readonly maxBodyBytes: number,
    private readonly wire: Pick<WireEntry, "settle" | "end">,
    /** Counts the body's bytes against the run's cap (maxReadBytes); false once it is past it. */
    private readonly chargeRead?: (bytes: number) => boolean,
  ) {}
  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.timer = setTimeout(() => {
      this.deadlineError = Object.assign(new Error(`the attempt did not complete within ${this.deadlineMs} ms`), {
        code: DEADLINE_CODE,
      });
      controller.abort(this.deadlineError);
    }, this.deadlineMs);
    this.timer.unref();
    this.inner.onRequestStart?.(controller, context);
  }
  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.inner.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }
  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    this.permit.done();
    this.wire.settle(statusCode);
    this.onAnswer(statusCode, headers);
    this.inner.onResponseStart?.(controller, statusCode, headers, statusMessage);
    const encoding = headerText(headers["content-encoding"]);
    const length = Number(headerText(headers["content-length"]) ?? "0");
    if (encoding !== undefined && !/^\s*(identity)?\s*$/i.test(encoding)) {
      this.cutOff(
        controller,
        `the answer is encoded (Content-Encoding: ${encoding.slice(0, 40)}) although zoneform asked for none`,
        ENCODED_BODY_CODE,
      );
    } else if (length > this.maxBodyBytes) {
      this.cutOff(controller, `the answer announces ${length} bytes (Content-Length)`, BODY_TOO_LARGE_CODE);
    }
  }
  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.cut) return;
    this.bytes += chunk.length;
    if (this.bytes > this.maxBodyBytes) {
      this.cutOff(controller, `the answer's body went past ${this.maxBodyBytes} bytes`, BODY_TOO_LARGE_CODE);
      return;
    }
    if (this.chargeRead && !this.chargeRead(chunk.length)) {
      // The run is stopped (the read budget's stop names the cap): this read ends here.
      this.cutOff(controller, "the answers to the run's reads went past --max-read-bytes", READ_CAP_CODE);
      return;
    }
    this.inner.onResponseData?.(controller, chunk);
  }
  private cutOff(controller: Dispatcher.DispatchController, message: string, code: string): void {
    this.cut = true;
    controller.abort(Object.assign(new Error(message), { code }));
  }
  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    clearTimeout(this.timer);
    this.wire.end();
    this.inner.onResponseEnd?.(controller, trailers);
  }
  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    clearTimeout(this.timer);
    this.permit.done();
    this.wire.settle(undefined, error);
    this.wire.end();
    // The retry handler never retries an attempt whose controller was aborted: show it this one as a
    // timeout (which it is), so that a GET is retried like after any other timeout.
    const seen =
      error === this.deadlineError
        ? (Object.create(controller, { aborted: { value: false } }) as Dispatcher.DispatchController)
        : controller;
    this.inner.onResponseError?.(seen, error);
  }
}

export function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(", ") : v;
}

/** How a request on the wire went: its answer's status says, else its failure. */
function outcomeOf(status: number | undefined, err?: Error): WireOutcome {
  if (status !== undefined) {
    if (status >= 200 && status < 300) return { result: "landed", detail: `HTTP ${status}` };
    // A 429 is refused before the API sees it; another 4xx is the API refusing it.
    if (status >= 400 && status < 500) return { result: "failed", detail: `HTTP ${status}, not made` };
    return { result: "unknown", detail: `HTTP ${status}, may or may not have been made` };
  }
  const code = (err as { code?: string } | undefined)?.code;
  if (isNotSentError(code)) return { result: "failed", detail: `${code}, never sent` };
  return {
    result: "unknown",
    detail: `${code ?? err?.message ?? "no answer"}, no answer: it may or may not have been made`,
  };
}
