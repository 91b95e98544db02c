// The one way zoneform talks to the Cloudflare API. Built on undici: an Agent pools connections
// (capped at --parallelism) and undici's retry interceptor re-sends failed attempts. What undici has
// no building block for is written here: the run-wide rate limiter, which every attempt (retries
// included) passes through, the rule that a POST which may have been processed is never re-sent,
// envelope unwrapping into actionable errors, paging, verbose logging and redaction of secrets.
// Every wait and read is bounded: a wait the server asks for beyond `maxWaitMs`, the run's deadline or
// `stop()` (a signal) stops the run, after which no attempt is sent; an answer body is read up to
// `maxBodyBytes` and never decompressed (zoneform asks for none and refuses an encoded answer); the
// answers to the run's reads take at most `maxReadBytes` in all (their bytes as they arrive, and what
// their objects and lists take once read), past which the run stops; an answer nested deeper than
// MAX_ANSWER_DEPTH is refused unread.
import { createHash } from "node:crypto";
import { Agent, interceptors, type Dispatcher } from "undici";
import type { IncomingHttpHeaders } from "node:http";
import type { Duplex } from "node:stream";
import { AnswerShapeError, ApiError, EXIT, RunStoppedError } from "../errors.js";
import { jsonShape } from "../json-depth.js";
import { formatBytes } from "../read-file.js";
import type { HttpMethod } from "../model/plan.js";
import { Redactor, SENSITIVE, isSecretParam, redactDestination } from "../redact.js";
import type { Auth } from "./credentials.js";
import { networkError, unwrapResponse, type IdShape, type PermissionHint } from "./errors.js";
import { notTheApiCause, unreachableCause } from "./run-cause.js";
import {
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_RATE_LIMIT,
  RateLimiter,
  Semaphore,
  formatWait,
  type Permit,
  type RateLimit,
} from "./rate-limiter.js";
import {
  BODY_TOO_LARGE_CODE,
  DEADLINE_CODE,
  DEFAULT_RETRY_POLICY,
  ENCODED_BODY_CODE,
  decideRetry,
  isNotSentError,
  parseRetryAfter,
  type Failure,
  type RetryPolicy,
} from "./retry.js";
import type { CloudflareClient, Envelope, RequestOptions, WireOutcome, WireRequest } from "./types.js";

export interface ClientOptions {
  baseUrl: string;
  auth: Auth;
  /** Requests in flight at once (default 8). */
  parallelism?: number;
  /** Requests per window for the whole run (default 1200 per 300 s, Cloudflare's limit). */
  rateLimit?: RateLimit;
  /** Per-attempt timeout in ms: no answer (headers) or no body data for this long fails it (default 30000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 6). */
  retries?: number;
  /** Verbose log, one line per call; lines are already redacted. */
  log?: (line: string) => void;
  /** Extra secret values to hide (env values of the config); the token and key are always hidden. */
  redactor?: Redactor;
  userAgent?: string;
  /** Random source for backoff jitter (tests). */
  random?: () => number;
  /** First backoff in ms (default 500, doubling to maxRetryDelayMs, default 8000). */
  retryBaseDelayMs?: number;
  maxRetryDelayMs?: number;
  /**
   * Longest wait the server may ask for (default DEFAULT_MAX_WAIT_MS, 5 minutes, Cloudflare's longest
   * block): one `Retry-After`, a rate-header reset or pace, or one call's 429 waits in all. Beyond it
   * the run stops at once (RunStoppedError, exit 1) naming the wait and the header; nothing more is sent.
   */
  maxWaitMs?: number;
  /**
   * Milliseconds from now after which nothing new is sent (the run's --deadline): calls then throw RunStoppedError
   * (exit 124).
   */
  deadlineMs?: number;
  /** Largest answer body read, in bytes (default DEFAULT_MAX_BODY_BYTES); a larger one is cut off with an error. */
  maxBodyBytes?: number;
  /**
   * Most bytes the answers to the run's reads (GET) may take in all (default DEFAULT_MAX_READ_BYTES): each answer's
   * bytes as they arrive, plus ANSWER_CONTAINER_BYTES for each object or list in it before it is parsed. Past it the
   * run stops (RunStoppedError, exit 1), naming the cap.
   */
  maxReadBytes?: number;
  /** The clock of the deadline and the rate limiter (tests). */
  now?: () => number;
  /** Told when every request must wait for the rate limit: for how long, and why (for progress). */
  onWait?: (ms: number, reason: string) => void;
  /** Told when one call waits `ms` before it is tried again (backoff after a failure), and why (for progress). */
  onRetryWait?: (ms: number, reason: string) => void;
  /** Names the permission a refused (403) call needs, for its message; the CLI and library pass the sections'. */
  permissionHint?: PermissionHint;
  /**
   * The form of the ids under each collection, for a "malformed id" message; the CLI and library pass the sections'.
   */
  idShapes?: readonly IdShape[];
  /** Most items one list read takes (default DEFAULT_MAX_LIST_ITEMS); a list announcing more is refused at once. */
  maxListItems?: number;
  /** Most pages one list read takes (default DEFAULT_MAX_LIST_PAGES); a list announcing more is refused at once. */
  maxListPages?: number;
  /**
   * Told of what the user should see but that does not stop the run (an item a list answered twice); lines are
   * redacted.
   */
  onWarning?: (line: string) => void;
}

export interface ClientStats {
  /** HTTP attempts sent, retries included. */
  requests: number;
  /** Attempts that were retries. */
  retries: number;
  /** 429 answers seen. */
  throttled: number;
}

/** Default cap on one answer's body: 64 MiB, far above the largest real list page. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Default cap on what the answers to one run's reads take: 512 MiB. Counted this way it bounds the memory they
 * take once read (about 1.5 times their text for real answers, never much more), well within Node's heap.
 */
export const DEFAULT_MAX_READ_BYTES = 512 * 1024 * 1024;

/**
 * What one object or list of an answer is counted as on top of its text: about what it takes in memory once
 * parsed, so that an answer of many tiny ones (`[[{}],[{}],…]`, 25 times its text once read) is counted as it is.
 */
export const ANSWER_CONTAINER_BYTES = 64;

/** Deepest nesting of an answer read: real answers nest 9 levels at most; deeper ones would overflow the stack. */
export const MAX_ANSWER_DEPTH = 32;

/** Default page size of page-style lists: within every paged endpoint's bounds (1–100, 5–50). */
export const DEFAULT_PER_PAGE = 50;

const ATTEMPT = "zoneformAttempt";

/** An answer cut off because the run's answers went past maxReadBytes: the run is stopped, never retried. */
const READ_CAP_CODE = "ZONEFORM_READ_CAP";

/** Per-call state shared between the retry decision and the gate that sends each attempt. */
interface AttemptState {
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

type Query = RequestOptions["query"];

export function createClient(opts: ClientOptions): CloudflareClient {
  const base = new URL(opts.baseUrl);
  const origin = base.origin;
  const basePath = base.pathname.replace(/\/+$/, "");
  const parallelism = opts.parallelism ?? 8;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    retries: opts.retries ?? DEFAULT_RETRY_POLICY.retries,
    random: opts.random ?? Math.random,
    ...(opts.retryBaseDelayMs !== undefined ? { baseDelayMs: opts.retryBaseDelayMs } : {}),
    ...(opts.maxRetryDelayMs !== undefined ? { maxDelayMs: opts.maxRetryDelayMs } : {}),
  };
  const log = opts.log;
  const authKind = "token" in opts.auth ? "token" : "key";
  /** Whether any call of the run has had an answer in the API's envelope (run-cause.ts). */
  let apiAnswered = false;
  /** A failure every call shares, before any answer from the API: the run stops with it, once. */
  const stopForCause = (message: string | undefined): void => {
    if (message !== undefined && !apiAnswered) stop(new RunStoppedError(redact(message), EXIT.error, "cause"));
  };

  const redactor = new Redactor();
  if ("token" in opts.auth) redactor.add(opts.auth.token);
  else redactor.add(opts.auth.key);
  const extra = opts.redactor;
  const redact = (text: string): string => redactUrls(redactor.redact(extra ? extra.redact(text) : text));

  const now = opts.now ?? Date.now;
  const maxWaitMs = opts.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  policy.maxRetryAfterMs = maxWaitMs;
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxReadBytes = opts.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  /** What the answers to the run's reads take so far (maxReadBytes). */
  let readBytes = 0;
  /** Counts `n` more bytes of the answers to reads; past the cap the run stops, and false says so. */
  const chargeRead = (n: number): boolean => {
    readBytes += n;
    if (readBytes <= maxReadBytes) return true;
    stop(
      new RunStoppedError(
        `the answers to this run's reads went past ${maxReadBytes} bytes (${formatBytes(maxReadBytes)}), the most ` +
          "zoneform holds in one run (--max-read-bytes, ZONEFORM_MAX_READ_BYTES); it stopped reading and sent " +
          "nothing more. If the zones really hold that much, raise the cap, e.g. --max-read-bytes 2GiB",
        EXIT.error,
        "wait",
      ),
    );
    return false;
  };
  const limiter = new RateLimiter({
    ...(opts.rateLimit ?? DEFAULT_RATE_LIMIT),
    now,
    log: log && ((l) => log(redact(l))),
    onWait: opts.onWait,
    maxWaitMs,
    onTooLong: (ms, header) => stop(waitTooLong(ms, header)),
  });
  const semaphore = new Semaphore(parallelism);
  const stats: ClientStats = { requests: 0, retries: 0, throttled: 0 };

  // Stopping: once `stopped` is set no attempt is sent; every call waiting (for a slot, the rate limit
  // or a backoff) is refused with it at once; attempts already on the wire finish (bounded by timeoutMs).
  let stopped: RunStoppedError | undefined;
  const wakeups = new Set<() => void>();
  const wire = new Set<WireRequest>();
  function stop(err: RunStoppedError): void {
    if (stopped) return;
    stopped = err;
    log?.(`stopping: ${err.message}`);
    clearTimeout(deadlineTimer);
    limiter.abort(err);
    semaphore.abort(err);
    for (const wake of [...wakeups]) wake();
  }
  function waitTooLong(ms: number, header: string): RunStoppedError {
    return new RunStoppedError(
      `the API asked to wait ${formatWait(ms)} (${redact(header)}), longer than the ` +
        `${formatWait(maxWaitMs)} zoneform waits at most (--max-wait); ` +
        "stopped at once, sending nothing more. Try again later: the rate-limit budget is shared with the " +
        "dashboard and every tool using this token",
      EXIT.error,
      "wait",
    );
  }
  const deadlineMs = opts.deadlineMs;
  const deadlineAt = deadlineMs === undefined ? undefined : now() + deadlineMs;
  const deadlinePassed = () =>
    stop(
      new RunStoppedError(
        "the run's deadline (--deadline) passed: zoneform sent nothing more, and let the requests already sent finish",
        EXIT.deadline,
        "deadline",
      ),
    );
  const deadlineTimer = deadlineMs === undefined ? undefined : setTimeout(deadlinePassed, deadlineMs);
  deadlineTimer?.unref();
  /**
   * Throws the stop's error once the run is stopped, or once its deadline has passed (whether or not the timer has
   * fired).
   */
  const assertRunning = () => {
    if (!stopped && deadlineAt !== undefined && now() >= deadlineAt) deadlinePassed();
    if (stopped) throw stopped;
  };
  /** Sleeps `ms`, or less when the run is stopped. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakeups.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeups.add(done);
    });

  const headers: Record<string, string> = {
    accept: "application/json",
    // Never a compressed answer: what is read is what is counted against maxBodyBytes.
    "accept-encoding": "identity",
    "user-agent": opts.userAgent ?? "zoneform",
    ...("token" in opts.auth
      ? { authorization: `Bearer ${opts.auth.token}` }
      : { "x-auth-email": opts.auth.email, "x-auth-key": opts.auth.key }),
  };

  const agent = new Agent({
    connections: parallelism,
    connect: { timeout: Math.min(timeoutMs, 30_000) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  // Sits below undici's retry handler, so every attempt, the first and each retry, waits for its
  // backoff and for the rate limiter, is counted, and has its rate headers read.
  const gate: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (dispatchOpts, handler) => {
    const state = (dispatchOpts as unknown as Record<string, unknown>)[ATTEMPT] as AttemptState | undefined;
    if (!state) return dispatch(dispatchOpts, handler);
    void (async () => {
      let permit: Permit;
      try {
        if (state.delayMs > 0) {
          const wait = state.delayMs;
          state.delayMs = 0;
          await pause(wait);
        }
        assertRunning();
        permit = await limiter.acquire();
        try {
          assertRunning();
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
      const sent = onTheWire(state);
      try {
        dispatch(
          dispatchOpts,
          new ObservingHandler(
            handler,
            permit,
            (status, h) => onAnswer(state, status, h),
            state.deadlineMs,
            maxBodyBytes,
            sent,
            // The answers to reads count against the run's cap as they arrive.
            state.method === "GET" ? chargeRead : undefined,
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

  /** A request now on the wire, until its answer or failure: what a stop waits for and reports. */
  function onTheWire(
    state: AttemptState,
  ): WireRequest & { settle(status: number | undefined, err?: Error): void; end(): void } {
    let resolve!: (o: WireOutcome) => void;
    const settled = new Promise<WireOutcome>((r) => (resolve = r));
    let done = false;
    const entry = {
      method: state.method,
      path: state.shown(),
      settled,
      settle(status: number | undefined, err?: Error) {
        if (done) return;
        done = true;
        resolve(outcomeOf(status, err));
      },
      end() {
        entry.settle(undefined, new Error("ended"));
        wire.delete(entry);
      },
    };
    wire.add(entry);
    return entry;
  }

  function onAnswer(state: AttemptState, status: number, h: Record<string, string | string[] | undefined>): void {
    state.answered = true;
    if (status !== 429) state.reached = true;
    limiter.observe(h);
    state.retryAfterMs = parseRetryAfter(h, now());
    if (state.retryAfterMs !== undefined && state.retryAfterMs > maxWaitMs) {
      stop(waitTooLong(state.retryAfterMs, retryAfterHeader(h)));
      return;
    }
    if (status === 429) {
      stats.throttled++;
      // Every caller waits, not only this one: the budget is shared.
      limiter.pauseFor(state.retryAfterMs ?? policy.baseDelayMs, `HTTP 429 from Cloudflare (${state.method})`);
    }
  }

  const dispatcher = agent.compose(gate, interceptors.retry({ throwOnError: false, maxRetries: policy.retries }));

  function retryFor(state: AttemptState): NonNullable<Parameters<typeof interceptors.retry>[0]>["retry"] {
    return (err, _ctx, cb) => {
      const code = (err as { code?: string }).code;
      if (!state.answered && code !== "UND_ERR_REQ_RETRY" && !isNotSentError(code) && !(err instanceof RunStoppedError))
        state.reached = true;
      // Stopped: no attempt more.
      if (stopped) {
        cb(err);
        return;
      }
      // A failure inside the body is retried by `call` from the start: undici's own retry would ask for
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
        stop(
          waitTooLong(
            state.throttledMs + decision.delayMs,
            `HTTP 429 answered ${state.throttledAttempts + 1} times to ${state.method} ${state.shown()}`,
          ),
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
          opts.onRetryWait?.(
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
          stop(
            waitTooLong(
              decision.retryAfterMs ?? 0,
              failure.kind === "status" ? retryAfterHeader(failure.headers) : "Retry-After",
            ),
          );
        }
        cb(err);
      }
    };
  }

  /**
   * One call. Once the run is stopped, a call none of whose attempts reached the API (nothing sent, or
   * only 429s) throws the stop's RunStoppedError; one that reached it throws what its answer says.
   */
  async function call(method: HttpMethod, path: string, ro: RequestOptions = {}): Promise<Envelope<unknown>> {
    const state: { current?: AttemptState } = {};
    try {
      return await attempt(method, path, ro, state);
    } catch (err) {
      if (stopped && (method === "GET" || !state.current?.reached)) throw stopped;
      throw err;
    }
  }

  async function attempt(
    method: HttpMethod,
    path: string,
    ro: RequestOptions,
    holder: { current?: AttemptState },
  ): Promise<Envelope<unknown>> {
    assertRunning();
    const rel = path.replace(/^\/+/, "");
    const qs = buildQuery(ro.query);
    // What messages and the log show of the call, redacted only when something is shown.
    let shown: string | undefined;
    const shownPath = () => (shown ??= redact(rel));
    const shownFull = () => shownPath() + redactQuery(ro.query);
    const hasBody = ro.body !== undefined;
    const reqHeaders = hasBody ? { ...headers, "content-type": "application/json" } : headers;
    const perTimeout = ro.timeoutMs ?? timeoutMs;
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

    const release = await semaphore.acquire();
    const started = Date.now();
    const retriesNote = () => (state.retries > 0 ? ` retries=${state.retries}` : "");
    try {
      let status: number;
      let resHeaders: Record<string, string | string[] | undefined>;
      let text: string;
      for (;;) {
        try {
          const res = await dispatcher.request({
            origin,
            path: `${basePath}/${rel}${qs}`,
            method,
            headers: reqHeaders,
            body: hasBody ? JSON.stringify(ro.body) : undefined,
            headersTimeout: perTimeout,
            bodyTimeout: perTimeout,
            retryOptions: { retry: retryFor(state) },
            [ATTEMPT]: state,
          } as Dispatcher.RequestOptions);
          status = res.statusCode;
          resHeaders = res.headers;
          text = await res.body.text();
          break;
        } catch (err) {
          const e = err as Error & { code?: string };
          // Cut off inside the body: a read (or an idempotent call) is made again from the start, unless the run
          // was stopped meanwhile (nothing more is sent then).
          const again =
            state.answered && !stopped
              ? decideRetry(
                  state.idempotent ? "GET" : method,
                  { kind: "network", code: e.code },
                  state.attempts - state.throttledAttempts,
                  policy,
                )
              : { retry: false as const };
          if (again.retry) {
            state.retries++;
            stats.retries++;
            state.delayMs = again.delayMs;
            log?.(`${method} ${shownFull()} cut off in the body (${e.code ?? e.name}); trying again`);
            continue;
          }
          log?.(`${method} ${shownFull()} failed (${e.code ?? e.name}) ${Date.now() - started}ms${retriesNote()}`);
          stopForCause(unreachableCause(`${origin}${basePath}`, e.code));
          throw networkError({
            method,
            path: shownPath(),
            origin,
            code: e.code,
            cause: redact(e.message),
            retries: state.retries,
            timeoutMs: perTimeout,
            maxBodyBytes,
          });
        }
      }
      // The answer is in: the next call may go out while this one is parsed and checked.
      release();
      log?.(`${method} ${shownFull()} ${status} ${Date.now() - started}ms${retriesNote()}`);
      if (method === "GET") {
        // Before it is parsed: what its objects and lists will take counts against the run's cap, and a nesting
        // deeper than any real answer's is refused (what walks the value afterwards would overflow the stack).
        const shape = jsonShape(text, MAX_ANSWER_DEPTH);
        if (!chargeRead(shape.containers * ANSWER_CONTAINER_BYTES)) throw stopped!;
        if (shape.tooDeepAt) {
          throw new AnswerShapeError(
            `GET ${shownPath()}: the answer nests deeper than ${MAX_ANSWER_DEPTH} levels (line ` +
              `${shape.tooDeepAt.line}, column ${shape.tooDeepAt.column}); no answer of the API does, so zoneform ` +
              "did not read it, and changed nothing",
          );
        }
      }
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
          auth: authKind,
          redact,
          permissionHint: opts.permissionHint,
          idShapes: opts.idShapes,
        });
      } catch (err) {
        stopForCause(notTheApiCause(`${origin}${basePath}`, err));
        if (err instanceof ApiError && err.info.envelope) apiAnswered = true;
        throw err;
      }
      apiAnswered = true;
      return { result: unwrapped.result, result_info: unwrapped.result_info, status };
    } finally {
      release();
    }
  }

  const maxItems = opts.maxListItems ?? DEFAULT_MAX_LIST_ITEMS;
  const maxPages = opts.maxListPages ?? DEFAULT_MAX_LIST_PAGES;
  const warn = (line: string) => opts.onWarning?.(redact(line));

  /**
   * The one strict reader of lists. `page` sends page/per_page from the first call; `cursor` follows
   * result_info.cursor; `auto` makes the first call with the caller's query only and continues the way
   * the answer says (a cursor, or totals announcing more pages). Every list is read to its end, by its
   * totals: a short page does not end it while the totals say there is more, an empty page the totals
   * say should hold items is asked for once more and is then an error, duplicates of an item (same id)
   * are folded with a warning when identical and an error when not, and the caps end a runaway list.
   */
  async function* readList<T>(path: string, mode: "page" | "cursor" | "auto", po: ListReadOptions): AsyncGenerator<T> {
    const lookahead = mode === "page" ? Math.max(0, Math.floor(po.lookahead ?? 0)) : 0;
    let style: "page" | "cursor" | undefined = mode === "auto" ? undefined : mode;
    let pageSize: number | undefined = mode === "page" ? (po.perPage ?? DEFAULT_PER_PAGE) : po.perPage;
    let cursor: string | undefined;
    const queryOf = (page: number): Query => {
      if (page === 1 && mode === "auto" && po.perPage === undefined) return po.query;
      if (style === "cursor" || (page === 1 && mode === "cursor")) return { ...po.query, per_page: pageSize, cursor };
      return { ...po.query, page, per_page: pageSize };
    };
    // Pages requested ahead of the one being consumed: at most `lookahead` of them, never past the last
    // page the API announced, so memory stays bounded and no request is made that the list did not need.
    const ahead = new Map<number, Promise<Envelope<unknown>>>();
    const fetchPage = (page: number) => {
      const pending = call("GET", path, { query: queryOf(page) });
      // A page abandoned because the list ended early must not surface as an unhandled rejection.
      pending.catch(() => undefined);
      return pending;
    };
    const seenPages = new Map<string, number>();
    const seenCursors = new Set<string>();
    const items = new ItemLedger(path, redact, warn, maxItems);
    // Items answered, duplicates included: what the API's total_count counts.
    let received = 0;
    for (let page = 1; ; page++) {
      if (page > maxPages)
        throw endlessList(
          path,
          `the list went on past ${maxPages} pages without an end (the page cap, --max-list-pages)`,
        );
      let env = await (ahead.get(page) ?? fetchPage(page));
      ahead.delete(page);
      let list = listOf<T>(env, "GET", () => redact(path));
      let totals = totalsOf(env.result_info, pageSize);
      checkAnnounced(path, totals);
      if (list.length === 0 && emptyTooSoon(page, totals, received, style, env.result_info)) {
        // An empty page where the totals promised items: a glitch is asked once more, then believed not.
        warn(
          `warning: GET ${path}: page ${page} came back empty although the list announced more ` +
            `(${describeTotals(totals, received)}); asking for it once more`,
        );
        env = await fetchPage(page);
        list = listOf<T>(env, "GET", () => redact(path));
        totals = totalsOf(env.result_info, pageSize);
        checkAnnounced(path, totals);
        if (list.length === 0 && emptyTooSoon(page, totals, received, style, env.result_info)) {
          throw incompleteList(
            path,
            `page ${page} came back empty twice although the list announced more (${describeTotals(totals, received)})`,
          );
        }
      }
      // A list that ignores `page` (or a cursor) answers the same items again: read forever otherwise.
      repeatedPage(seenPages, list, page, path, style === "cursor" ? "" : " (the list ignores paging)");
      if (style === "page" && totals.pages !== undefined) {
        for (let next = page + 1; next <= Math.min(totals.pages, page + lookahead, maxPages); next++) {
          if (!ahead.has(next)) ahead.set(next, fetchPage(next));
        }
      }
      received += list.length;
      for (const item of list) if (items.admit(item, page)) yield item;
      const info = env.result_info;
      const next = typeof info?.cursor === "string" && info.cursor !== "" ? info.cursor : undefined;
      if (style === undefined) {
        // The first answer of an `auto` read says how the list goes on.
        if (next !== undefined) style = "cursor";
        else if (
          info !== undefined &&
          (morePages(page, totals, received) ||
            (totals.pages === undefined &&
              totals.count === undefined &&
              po.perPage !== undefined &&
              list.length >= po.perPage))
        ) {
          style = "page";
          pageSize = num(info.per_page) ?? po.perPage;
        } else return;
      }
      if (style === "cursor") {
        if (list.length === 0 || next === undefined) return;
        if (seenCursors.has(next)) throw endlessList(path, "the API returned the same page cursor twice");
        seenCursors.add(next);
        cursor = next;
        continue;
      }
      if (totals.pages === undefined && totals.count === undefined) {
        // No totals: a full page asks for the next, a short or empty one ends the list.
        if (list.length === 0 || list.length < (pageSize ?? DEFAULT_PER_PAGE)) return;
      } else if (!morePages(page, totals, received)) {
        return;
      }
    }
  }

  function checkAnnounced(path: string, t: Totals): void {
    if (t.pages !== undefined && t.pages > maxPages) {
      throw tooLong(
        path,
        `announces ${t.pages} pages, more than the ${maxPages} zoneform reads at most (--max-list-pages)`,
      );
    }
    if (t.count !== undefined && t.count > maxItems) {
      throw tooLong(
        path,
        `announces ${t.count} items, more than the ${maxItems} zoneform reads at most (--max-list-items)`,
      );
    }
  }

  function tooLong(path: string, why: string): ApiError {
    return new ApiError(
      `GET ${redact(path)}: the list ${why}; stopping before reading it, and nothing was changed. If the ` +
        `zone really holds that many, raise the cap`,
      { status: 200, method: "GET", path: redact(path), errors: [], retryable: false },
    );
  }

  function incompleteList(path: string, why: string): ApiError {
    return new ApiError(
      `GET ${redact(path)}: ${why}; the list could not be read whole, so nothing was changed; try again later`,
      {
        status: 200,
        method: "GET",
        path: redact(path),
        errors: [],
        retryable: false,
      },
    );
  }

  /** Throws when a page holds the same items as any page before it (a list going round in circles). */
  function repeatedPage(seen: Map<string, number>, items: unknown[], page: number, path: string, why: string): void {
    if (items.length === 0) return;
    const signature = createHash("sha256").update(pageSignature(items)).digest("base64");
    const earlier = seen.get(signature);
    if (earlier !== undefined) throw endlessList(path, `page ${page} holds the same items as page ${earlier}${why}`);
    seen.set(signature, page);
  }

  function endlessList(path: string, why: string): ApiError {
    return new ApiError(
      `GET ${redact(path)}: ${why}; stopping so the list is not read forever, and nothing was changed`,
      {
        status: 200,
        method: "GET",
        path: redact(path),
        errors: [],
        retryable: false,
      },
    );
  }

  return {
    async request<T>(method: HttpMethod, path: string, ro?: RequestOptions): Promise<T> {
      return (await call(method, path, ro)).result as T;
    },
    async requestEnvelope<T>(method: HttpMethod, path: string, ro?: RequestOptions): Promise<Envelope<T>> {
      return (await call(method, path, ro)) as Envelope<T>;
    },
    paginate: <T>(path: string, po: ListReadOptions = {}) => readList<T>(path, "page", po),
    paginateCursor: <T>(path: string, po: ListReadOptions = {}) => readList<T>(path, "cursor", po),
    async listAll<T>(path: string, po: ListReadOptions = {}): Promise<T[]> {
      const out: T[] = [];
      for await (const item of readList<T>(path, "auto", po)) out.push(item);
      return out;
    },
    stats: () => ({ ...stats }),
    budget: () => limiter.budget(),
    stop,
    stopped: () => stopped,
    onTheWire: () => [...wire].map(({ method, path, settled }) => ({ method, path, settled })),
    async close() {
      clearTimeout(deadlineTimer);
      limiter.close();
      await agent.close();
    },
  };
}

/**
 * Passes an attempt's events through, releasing its rate-limit permit on the answer, giving it an
 * overall deadline (the idle timeouts alone let a body that drips a byte now and then run forever),
 * cutting off a body past `maxBodyBytes` or one that is encoded (compressed), and telling the
 * request on the wire how it went.
 */
class ObservingHandler implements Dispatcher.DispatchHandler {
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
    private readonly wire: { settle(status: number | undefined, err?: Error): void; end(): void },
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
      // The run is stopped (the client's stop names the cap): this read ends here.
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

function listOf<T>(env: Envelope<unknown>, method: string, shownPath: () => string): T[] {
  if (Array.isArray(env.result)) return env.result as T[];
  const path = shownPath();
  throw new ApiError(
    `${method} ${path}: expected a list in the answer's "result", got ` +
      `${env.result === null ? "null" : typeof env.result}`,
    {
      status: env.status,
      method,
      path,
      errors: [],
      retryable: false,
    },
  );
}

function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(", ") : v;
}

/** The Retry-After header of an answer, as a message quotes it. */
function retryAfterHeader(h: Record<string, string | string[] | undefined>): string {
  const ms = headerText(h["retry-after-ms"]);
  if (ms !== undefined) return `retry-after-ms: ${ms.slice(0, 40)}`;
  return `Retry-After: ${(headerText(h["retry-after"]) ?? "").slice(0, 40)}`;
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

/**
 * Default cap on the items of one list: the largest real lists (a SaaS zone's custom hostnames, Page Shield scripts)
 * fit.
 */
export const DEFAULT_MAX_LIST_ITEMS = 500_000;
/** Default cap on the pages of one list read (500 000 items at 25 a page). */
export const DEFAULT_MAX_LIST_PAGES = 20_000;

interface ListReadOptions {
  query?: Query;
  perPage?: number;
  lookahead?: number;
}

/** What a page's result_info announces about the whole list. */
interface Totals {
  /** total_pages, or total_count over the page size. */
  pages?: number;
  count?: number;
}

function totalsOf(info: Record<string, unknown> | undefined, asked: number | undefined): Totals {
  if (!info) return {};
  const count = num(info.total_count);
  const size = num(info.per_page) ?? asked;
  const pages =
    num(info.total_pages) ??
    (count !== undefined && size !== undefined && size > 0 ? Math.ceil(count / size) : undefined);
  return { ...(pages !== undefined ? { pages } : {}), ...(count !== undefined ? { count } : {}) };
}

/** Whether the totals say the list goes on past `page`. */
function morePages(page: number, t: Totals, received: number): boolean {
  return (t.pages !== undefined && page < t.pages) || (t.count !== undefined && received < t.count);
}

/** An empty page the list's own totals (or its next cursor) say should have held items. */
function emptyTooSoon(
  page: number,
  t: Totals,
  received: number,
  style: "page" | "cursor" | undefined,
  info: Record<string, unknown> | undefined,
): boolean {
  if (typeof info?.cursor === "string" && info.cursor !== "") return true;
  if (style === "cursor") return false;
  return morePages(page, t, received);
}

function describeTotals(t: Totals, received: number): string {
  const parts = [
    t.pages !== undefined ? `total_pages ${t.pages}` : "",
    t.count !== undefined ? `total_count ${t.count}` : "",
    `${received} read so far`,
  ];
  return parts.filter(Boolean).join(", ");
}

/**
 * The ids a list read has answered, to fold an item answered twice (a paging overlap, a cache): the
 * same id with the same content is read once, with a warning; with other content the list cannot be
 * trusted and the read stops. Past the item cap the list is refused.
 */
class ItemLedger {
  private readonly seen = new Map<string, string>();
  private readonly warned = new Set<string>();
  private count = 0;
  constructor(
    private readonly path: string,
    private readonly redact: (s: string) => string,
    private readonly warn: (line: string) => void,
    private readonly max: number,
  ) {}

  /** Whether `item` is new (to be yielded); throws on a conflicting duplicate or past the cap. */
  admit(item: unknown, page: number): boolean {
    const id = item !== null && typeof item === "object" && "id" in item ? (item as { id: unknown }).id : undefined;
    if (id === undefined || id === null || (typeof id !== "string" && typeof id !== "number")) return this.counted();
    const key = `${typeof id}:${id}`;
    const digest = createHash("sha256").update(stableJson(item)).digest("base64").slice(0, 22);
    const earlier = this.seen.get(key);
    if (earlier === undefined) {
      this.seen.set(key, `${page}:${digest}`);
      return this.counted();
    }
    const [firstPage, firstDigest] = [earlier.slice(0, earlier.indexOf(":")), earlier.slice(earlier.indexOf(":") + 1)];
    const where = firstPage === String(page) ? `twice on page ${page}` : `on pages ${firstPage} and ${page}`;
    if (firstDigest !== digest) {
      throw new AnswerShapeError(
        `GET ${this.redact(this.path)}: the list holds id ${JSON.stringify(id)} ${where} with different content; ` +
          "zoneform cannot tell which is live, so it stopped this zone and changed nothing; try again later",
      );
    }
    if (!this.warned.has(key)) {
      this.warned.add(key);
      this.warn(
        `warning: GET ${this.path}: the list holds id ${JSON.stringify(id)} ${where} with the same content ` +
          `(a paging overlap); read once`,
      );
    }
    return false;
  }

  private counted(): boolean {
    if (++this.count > this.max) {
      throw new ApiError(
        `GET ${this.redact(this.path)}: the list went on past ${this.max} items (the item cap, ` +
          `--max-list-items); stopping, and nothing was changed. If the zone really holds that many, ` +
          `raise the cap`,
        { status: 200, method: "GET", path: this.redact(this.path), errors: [], retryable: false },
      );
    }
    return true;
  }
}

/** JSON with object keys in a fixed order: one object answered twice compares equal whatever its key order. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** What identifies a page's items: their ids where they have them, else the items themselves. */
function pageSignature(items: unknown[]): string {
  return items
    .map((i) =>
      i && typeof i === "object" && "id" in i ? JSON.stringify((i as { id: unknown }).id) : JSON.stringify(i),
    )
    .join("\u0000");
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** `?a=1&b=2`, dropping undefined values; empty string when nothing is left. */
export function buildQuery(query: Query): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : "";
}

/** The query string as logged: secret parameters hidden, destination URLs' credentials hidden. */
export function redactQuery(query: Query): string {
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
