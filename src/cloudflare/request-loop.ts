// One call, from the request to its unwrapped answer: the slots (--parallelism) and the connection pool, undici's
// retry interceptor over the attempt gate (attempt-gate.ts: backoffs, the rate limiter, which failures are sent
// again), a read cut off inside its body made again from the start, and every failure mapped to the error that says
// what to do (errors.ts: a network error, the envelope's errors; run-cause.ts: a failure every call shares stops
// the run at once). Once the run is stopped, a call none of whose attempts reached the API throws the stop's error.
import { Agent, type Dispatcher, interceptors } from "undici";
import { ApiError, EXIT, RunStoppedError } from "../errors.js";
import type { HttpMethod } from "../model/index.js";
import { SENSITIVE, isSecretParam, redactDestination } from "../redact.js";
import { ATTEMPT, type AttemptGate, type AttemptState } from "./attempt-gate.js";
import type { ClientStats } from "./types.js";
import type { Auth } from "./credentials.js";
import { networkError, unwrapResponse, type IdShape, type PermissionHint } from "./errors.js";
import type { Semaphore } from "./rate-limiter.js";
import { decideRetry, type RetryPolicy } from "./retry.js";
import { type BaseUrlSource, notTheApiCause, unreachableCause } from "./run-cause.js";
import type { RunStop } from "./run-stop.js";
import type { Envelope, RequestOptions } from "./types.js";
import type { ReadBudget } from "./wire.js";

type Query = RequestOptions["query"];

export interface RequestLoopOptions {
  baseUrl: string;
  /** ClientOptions.baseUrlFrom. */
  baseUrlFrom?: BaseUrlSource;
  auth: Auth;
  userAgent?: string;
  /** Connections in the pool (the slots' size). */
  parallelism: number;
  /** Per-attempt timeout in ms, unless the call gives its own. */
  timeoutMs: number;
  policy: RetryPolicy;
  run: RunStop;
  gate: AttemptGate;
  slots: Semaphore;
  stats: ClientStats;
  readBudget: ReadBudget;
  maxBodyBytes: number;
  redact: (text: string) => string;
  log?: (line: string) => void;
  permissionHint?: PermissionHint;
  idShapes?: readonly IdShape[];
}

export class RequestLoop {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly headers: Record<string, string>;
  private readonly agent: Agent;
  private readonly dispatcher: Dispatcher;
  /** Whether any call of the run has had an answer in the API's envelope (run-cause.ts). */
  private apiAnswered = false;

  constructor(private readonly o: RequestLoopOptions) {
    const base = new URL(o.baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, "");
    this.headers = {
      accept: "application/json",
      // Never a compressed answer: what is read is what is counted against maxBodyBytes.
      "accept-encoding": "identity",
      "user-agent": o.userAgent ?? "zoneform",
      ...("token" in o.auth
        ? { authorization: `Bearer ${o.auth.token}` }
        : { "x-auth-email": o.auth.email, "x-auth-key": o.auth.key }),
    };
    this.agent = new Agent({
      connections: o.parallelism,
      connect: { timeout: Math.min(o.timeoutMs, 30_000) },
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    });
    this.dispatcher = this.agent.compose(
      o.gate.interceptor,
      interceptors.retry({ throwOnError: false, maxRetries: o.policy.retries }),
    );
  }

  /**
   * One call. Once the run is stopped, a call none of whose attempts reached the API (nothing sent, or
   * only 429s) throws the stop's RunStoppedError; one that reached it throws what its answer says.
   */
  async call(method: HttpMethod, path: string, ro: RequestOptions = {}): Promise<Envelope<unknown>> {
    return (await this.callRead(method, path, ro))();
  }

  /**
   * One call as `call` makes it, whose answer is read (decoded, charged to the read budget, parsed, checked and
   * unwrapped, or its error thrown) only when the returned function is called: the pages of a list asked for ahead
   * wait for their turn as their bytes, outside V8's heap, rather than as parsed objects that outlive its
   * young-generation collections and make it grow with the length of the list (issue 39: audit memory).
   */
  async callRead(method: HttpMethod, path: string, ro: RequestOptions = {}): Promise<() => Envelope<unknown>> {
    const state: { current?: AttemptState } = {};
    const thrown = (err: unknown): never => {
      const stopped = this.o.run.stopped();
      if (stopped && (method === "GET" || !state.current?.reached)) throw stopped;
      throw err;
    };
    let read: () => Envelope<unknown>;
    try {
      read = await this.attempt(method, path, ro, state);
    } catch (err) {
      return thrown(err);
    }
    return () => {
      try {
        return read();
      } catch (err) {
        return thrown(err);
      }
    };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** A failure every call shares, before any answer from the API: the run stops with it, once. */
  private stopForCause(message: string | undefined): void {
    if (message !== undefined && !this.apiAnswered)
      this.o.run.stop(new RunStoppedError(this.o.redact(message), EXIT.error, "cause"));
  }

  private async attempt(
    method: HttpMethod,
    path: string,
    ro: RequestOptions,
    holder: { current?: AttemptState },
  ): Promise<() => Envelope<unknown>> {
    const { run, redact, log, policy } = this.o;
    const { origin, basePath } = this;
    run.assertRunning();
    const rel = path.replace(/^\/+/, "");
    const qs = buildQuery(ro.query);
    // What messages and the log show of the call, redacted only when something is shown.
    let shown: string | undefined;
    const shownPath = () => (shown ??= redact(rel));
    const shownFull = () => shownPath() + redactQuery(ro.query);
    const hasBody = ro.body !== undefined;
    const reqHeaders = hasBody ? { ...this.headers, "content-type": "application/json" } : this.headers;
    const perTimeout = ro.timeoutMs ?? this.o.timeoutMs;
    const state: AttemptState = {
      method,
      idempotent: ro.idempotent === true,
      attempts: 0,
      retries: 0,
      delayMs: 0,
      deadlineMs: perTimeout,
      throttledAttempts: 0,
      throttledMs: 0,
      shown: shownFull,
    };
    holder.current = state;

    const release = await this.o.slots.acquire();
    const started = Date.now();
    const retriesNote = () => (state.retries > 0 ? ` retries=${state.retries}` : "");
    try {
      let status: number;
      let resHeaders: Record<string, string | string[] | undefined>;
      let bytes: Uint8Array;
      for (;;) {
        try {
          const res = await this.dispatcher.request({
            origin,
            path: `${basePath}/${rel}${qs}`,
            method,
            headers: reqHeaders,
            body: hasBody ? JSON.stringify(ro.body) : undefined,
            headersTimeout: perTimeout,
            bodyTimeout: perTimeout,
            retryOptions: { retry: this.o.gate.retryFor(state) },
            [ATTEMPT]: state,
          } as Dispatcher.RequestOptions);
          status = res.statusCode;
          resHeaders = res.headers;
          // The bytes, decoded when read: awaiting the text itself kept pages' texts alive past their page (textOf).
          bytes = await res.body.bytes();
          break;
        } catch (err) {
          const e = err as Error & { code?: string };
          // Cut off inside the body: a read (or an idempotent call) is made again from the start, unless the run
          // was stopped meanwhile (nothing more is sent then).
          const again =
            state.answered && !run.stopped()
              ? decideRetry(
                  state.idempotent ? "GET" : method,
                  { kind: "network", code: e.code },
                  state.attempts - state.throttledAttempts,
                  policy,
                )
              : { retry: false as const };
          if (again.retry) {
            state.retries++;
            this.o.stats.retries++;
            state.delayMs = again.delayMs;
            log?.(`${method} ${shownFull()} cut off in the body (${e.code ?? e.name}); trying again`);
            continue;
          }
          log?.(`${method} ${shownFull()} failed (${e.code ?? e.name}) ${Date.now() - started}ms${retriesNote()}`);
          this.stopForCause(unreachableCause(`${origin}${basePath}`, e.code, state.retries, this.o.baseUrlFrom));
          throw networkError({
            method,
            path: shownPath(),
            origin,
            code: e.code,
            cause: redact(e.message),
            retries: state.retries,
            timeoutMs: perTimeout,
            maxBodyBytes: this.o.maxBodyBytes,
          });
        }
      }
      // The answer is in: the next call may go out while this one is parsed and checked.
      release();
      log?.(`${method} ${shownFull()} ${status} ${Date.now() - started}ms${retriesNote()}`);
      return () => {
        const text = textOf(bytes);
        if (method === "GET") this.o.readBudget.checkAnswer(text, shownPath);
        let unwrapped: ReturnType<typeof unwrapResponse>;
        try {
          unwrapped = unwrapResponse({
            method,
            get path() {
              return shownPath();
            },
            status,
            headers: resHeaders,
            body: text,
            retries: state.retries,
            retryAfterMs: state.retryAfterMs,
            retryAfterTooLongMs: state.retryAfterTooLongMs,
            maxRetryAfterMs: policy.maxRetryAfterMs,
            auth: "token" in this.o.auth ? "token" : "key",
            redact,
            permissionHint: this.o.permissionHint,
            idShapes: this.o.idShapes,
          });
        } catch (err) {
          this.stopForCause(notTheApiCause(`${origin}${basePath}`, err));
          if (err instanceof ApiError && err.info.envelope) this.apiAnswered = true;
          throw err;
        }
        this.apiAnswered = true;
        return { result: unwrapped.result, result_info: unwrapped.result_info, status };
      };
    } finally {
      release();
    }
  }
}

/**
 * An answer's body as text, exactly as undici's `body.text()` reads it: UTF-8 (an invalid sequence becomes U+FFFD),
 * a leading byte order mark dropped. The call awaits the bytes (kept outside V8's heap) and decodes them itself.
 * Measured (issue 39): awaiting `body.text()` instead, most pages' texts outlived V8's young-generation collections
 * (a call that has waited long sits in the old generation, holding what it was resumed with until a full collection,
 * even once it has returned), and the young generation, so the peak memory of a list read, grew with its length.
 */
export function textOf(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bom = buf.length > 2 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  return buf.toString("utf8", bom ? 3 : 0);
}

/** `?a=1&b=2`, dropping undefined values; empty string when nothing is left. */
function buildQuery(query: Query): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : "";
}

/** The query string as logged: secret parameters hidden, destination URLs' credentials hidden. */
function redactQuery(query: Query): string {
  if (!query) return "";
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    const value = isSecretParam(k)
      ? SENSITIVE
      : typeof v === "string" && v.includes("://")
        ? redactDestination(v)
        : String(v);
    parts.push(`${k}=${value}`);
  }
  return parts.length ? `?${parts.join("&")}` : "";
}

/** Hides the credentials of any URL with a query string inside free text (a destination_conf echoed back). */
export function redactUrls(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*\?[^\s"'<>]*/gi, (url) => redactDestination(url));
}
