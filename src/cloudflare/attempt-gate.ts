// Each attempt of a call, under undici's retry interceptor: its backoff, the run-wide rate limiter, and
// which failures undici sends again. A 429 pauses every caller without spending the call's retries; a POST
// that may have been processed is never re-sent (retry.ts). Spec: docs/connecting.md, Retries.
import type { Dispatcher, interceptors } from "undici";
import { RunStoppedError } from "../errors.js";
import type { Permit, RateLimiter } from "./rate-limiter.js";
import { decideRetry, isNotSentError, parseRetryAfter, type Failure, type RetryPolicy } from "./retry.js";
import type { RunStop } from "./run-stop.js";
import type { ClientStats } from "./types.js";
import { headerText, ObservingHandler, type ReadBudget, type WireRequests } from "./wire.js";

export const ATTEMPT = "zoneformAttempt";

export interface AttemptState {
  method: string;
  idempotent: boolean;
  attempts: number;
  retries: number;
  delayMs: number;
  retryAfterTooLongMs?: number;
  retryAfterMs?: number;
  deadlineMs: number;
  answered?: boolean;
  throttledAttempts: number;
  throttledMs: number;
  reached?: boolean;
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
  onRetryWait?: (ms: number, reason: string) => void;
}

type RetryCallback = NonNullable<NonNullable<Parameters<typeof interceptors.retry>[0]>["retry"]>;

export class AttemptGate {
  constructor(private readonly o: AttemptGateOptions) {}

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
      // A failure inside the body: client.ts sends it again whole; undici would ask for a Range the API ignores.
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
      // A 429 pauses the run (onAnswer) without spending this call's retries.
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

function retryAfterHeader(h: Record<string, string | string[] | undefined>): string {
  const ms = headerText(h["retry-after-ms"]);
  if (ms !== undefined) return `retry-after-ms: ${ms.slice(0, 40)}`;
  return `Retry-After: ${(headerText(h["retry-after"]) ?? "").slice(0, 40)}`;
}
