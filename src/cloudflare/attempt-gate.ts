// Each attempt of a call, the first and every retry, and the rate limiter. The gate sits below undici's retry
// interceptor, so every attempt waits for its backoff and for the rate limiter, is counted, and has its answer's
// rate headers read; the retry callback decides, per failed attempt, whether undici sends another. A 429 is the
// rate limit, not a failure of the call: it pauses every caller without spending the call's retries, and a wait
// the API asks for beyond `maxWaitMs` stops the run (run-stop.ts). A POST that may have been processed is never
// re-sent (retry.ts decideRetry).
import type { Dispatcher, interceptors } from "undici";
import { RunStoppedError } from "../errors.js";
import type { Permit, RateLimiter } from "./rate-limiter.js";
import { decideRetry, isNotSentError, parseRetryAfter, type Failure, type RetryPolicy } from "./retry.js";
import type { RunStop } from "./run-stop.js";
import type { ClientStats } from "./types.js";
import { headerText, ObservingHandler, type ReadBudget, type WireRequests } from "./wire.js";

/** The dispatch option that carries an attempt's state from the call to the gate. */
export const ATTEMPT = "zoneformAttempt";

/** Per-call state shared between the retry decision and the gate that sends each attempt. */
export interface AttemptState {
  method: string;
  /** Retried like a GET whatever the method (RequestOptions.idempotent). */
  idempotent: boolean;
  attempts: number;
  retries: number;
  /** Wait before the next attempt (backoff or Retry-After). */
  delayMs: number;
  retryAfterTooLongMs?: number;
  /** Retry-After of the last answer. */
  retryAfterMs?: number;
  /** Longest one attempt may take, from the request to the end of the body. */
  deadlineMs: number;
  /** The current attempt got its answer's headers: a failure now is in the body. */
  answered?: boolean;
  /** Attempts answered 429, and the time waited for them: they do not spend the call's retries. */
  throttledAttempts: number;
  throttledMs: number;
  /**
   * An attempt reached the API (an answer other than 429, or a connection lost after sending): a write may have been
   * made.
   */
  reached?: boolean;
  /** The call as the log shows it (redacted), for the requests on the wire. */
  shown: () => string;
}

export interface AttemptGateOptions {
  run: RunStop;
  limiter: RateLimiter;
  stats: ClientStats;
  wire: WireRequests;
  readBudget: ReadBudget;
  policy: RetryPolicy;
  maxBodyBytes: number;
  maxWaitMs: number;
  now: () => number;
  /** Told when one call waits `ms` before it is tried again (backoff after a failure), and why. */
  onRetryWait?: (ms: number, reason: string) => void;
}

type RetryCallback = NonNullable<NonNullable<Parameters<typeof interceptors.retry>[0]>["retry"]>;

export class AttemptGate {
  constructor(private readonly o: AttemptGateOptions) {}

  /** The interceptor below undici's retry interceptor that every attempt passes. */
  readonly interceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (dispatchOpts, handler) => {
    const state = (dispatchOpts as unknown as Record<string, unknown>)[ATTEMPT] as AttemptState | undefined;
    if (!state) return dispatch(dispatchOpts, handler);
    const { run, limiter, stats } = this.o;
    void (async () => {
      let permit: Permit;
      try {
        if (state.delayMs > 0) {
          const wait = state.delayMs;
          state.delayMs = 0;
          await run.pause(wait);
        }
        run.assertRunning();
        permit = await limiter.acquire();
        try {
          run.assertRunning();
        } catch (err) {
          permit.done();
          throw err;
        }
      } catch (err) {
        // Stopped before this attempt was sent: it is not sent.
        handler.onResponseError?.(null as unknown as Dispatcher.DispatchController, err as Error);
        return;
      }
      state.attempts++;
      state.answered = false;
      stats.requests++;
      const sent = this.o.wire.open(state.method, state.shown);
      try {
        dispatch(
          dispatchOpts,
          new ObservingHandler(
            handler,
            permit,
            (status, h) => this.onAnswer(state, status, h),
            state.deadlineMs,
            this.o.maxBodyBytes,
            sent,
            // The answers to reads count against the run's cap as they arrive.
            state.method === "GET" ? (n) => this.o.readBudget.charge(n) : undefined,
          ),
        );
      } catch (err) {
        permit.done();
        sent.settle(undefined, err as Error);
        handler.onResponseError?.(null as unknown as Dispatcher.DispatchController, err as Error);
      }
    })();
    return true;
  };

  /** An attempt's answer is in (its headers): the rate limiter reads them; a 429 pauses every caller. */
  private onAnswer(state: AttemptState, status: number, h: Record<string, string | string[] | undefined>): void {
    const { limiter, now, maxWaitMs, policy } = this.o;
    state.answered = true;
    if (status !== 429) state.reached = true;
    limiter.observe(h);
    state.retryAfterMs = parseRetryAfter(h, now());
    if (state.retryAfterMs !== undefined && state.retryAfterMs > maxWaitMs) {
      this.o.run.stopForWait(state.retryAfterMs, retryAfterHeader(h));
      return;
    }
    if (status === 429) {
      this.o.stats.throttled++;
      // Every caller waits, not only this one: the budget is shared.
      limiter.pauseFor(state.retryAfterMs ?? policy.baseDelayMs, `HTTP 429 from Cloudflare (${state.method})`);
    }
  }

  /** undici's retry callback for one call: whether a failed attempt is sent again, and after how long. */
  retryFor(state: AttemptState): RetryCallback {
    const { run, policy, maxWaitMs, stats } = this.o;
    return (err, _ctx, cb) => {
      const code = (err as { code?: string }).code;
      if (!state.answered && code !== "UND_ERR_REQ_RETRY" && !isNotSentError(code) && !(err instanceof RunStoppedError))
        state.reached = true;
      // Stopped: no attempt more.
      if (run.stopped()) {
        cb(err);
        return;
      }
      // A failure inside the body is retried by the request loop from the start: undici's own retry would ask for
      // the rest with a Range header, which the API does not serve.
      if (state.answered && (err as { code?: string }).code !== "UND_ERR_REQ_RETRY") {
        cb(err);
        return;
      }
      const e = err as Error & {
        code?: string;
        statusCode?: number;
        headers?: Record<string, string | string[] | undefined>;
      };
      const failure: Failure =
        e.code === "UND_ERR_REQ_RETRY" && typeof e.statusCode === "number"
          ? { kind: "status", status: e.statusCode, headers: e.headers ?? {} }
          : { kind: "network", code: e.code };
      // A 429 is the rate limit, not a failure of this call: it pauses the run (see onAnswer) without
      // spending the call's retries, for as long as Cloudflare may block (5 minutes) in all.
      const throttled = failure.kind === "status" && failure.status === 429;
      const decision = throttled
        ? decideRetry(state.method, failure, 1, policy)
        : decideRetry(
            state.idempotent ? "GET" : state.method,
            failure,
            state.attempts - state.throttledAttempts,
            policy,
          );
      if (decision.retry && throttled && state.throttledMs + decision.delayMs > maxWaitMs) {
        // 429 after 429: the waits of one call count together against the same cap.
        run.stopForWait(
          state.throttledMs + decision.delayMs,
          `HTTP 429 answered ${state.throttledAttempts + 1} times to ${state.method} ${state.shown()}`,
        );
        cb(err);
        return;
      }
      if (decision.retry) {
        if (throttled) {
          state.throttledAttempts++;
          state.throttledMs += decision.delayMs;
        }
        state.retries++;
        stats.retries++;
        state.delayMs = decision.delayMs;
        if (!throttled && decision.delayMs > 0) {
          this.o.onRetryWait?.(
            decision.delayMs,
            `${state.method} ${state.shown()} ` +
              (failure.kind === "status"
                ? `answered HTTP ${failure.status}`
                : `failed (${failure.code ?? "connection"})`),
          );
        }
        cb(null);
      } else {
        if (decision.reason === "retry-after-too-long") {
          state.retryAfterTooLongMs = decision.retryAfterMs;
          run.stopForWait(
            decision.retryAfterMs ?? 0,
            failure.kind === "status" ? retryAfterHeader(failure.headers) : "Retry-After",
          );
        }
        cb(err);
      }
    };
  }
}

/** The Retry-After header of an answer, as a message quotes it. */
function retryAfterHeader(h: Record<string, string | string[] | undefined>): string {
  const ms = headerText(h["retry-after-ms"]);
  if (ms !== undefined) return `retry-after-ms: ${ms.slice(0, 40)}`;
  return `Retry-After: ${(headerText(h["retry-after"]) ?? "").slice(0, 40)}`;
}
