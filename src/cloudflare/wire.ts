// What bounds one attempt's answer: body size, no encoded answer, an overall deadline (idle timeouts alone
// let a dripping body run forever), the run's --max-read-bytes and a nesting cap; and the requests on the wire.
// Spec: docs/commands/README.md, Bounds.
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

const ANSWER_CONTAINER_BYTES = 64;

const MAX_ANSWER_DEPTH = 32;

const READ_CAP_CODE = "ZONEFORM_READ_CAP";

export class ReadBudget {
  private bytes = 0;
  constructor(
    private readonly max: number,
    private readonly run: RunStop,
  ) {}

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

export interface WireEntry extends WireRequest {
  settle(status: number | undefined, err?: Error): void;
  end(): void;
}

export class WireRequests {
  private readonly entries = new Set<WireEntry>();

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
    // undici never retries an aborted controller: show our deadline as the timeout it is, so a GET is retried.
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
