// The one way zoneform talks to the Cloudflare API, and a call's whole path: the slots (--parallelism), each
// attempt through the attempt gate (backoff, rate limiter) under undici's retry interceptor, a body cut off
// sent again, then the envelope unwrapped or the error. Spec: docs/connecting.md; layers: docs/architecture.md.
import { Agent, type Dispatcher, interceptors } from "undici";
import { ApiError, EXIT, RunStoppedError } from "../errors.js";
import type { HttpMethod } from "../model/index.js";
import { Redactor } from "../redact.js";
import { ATTEMPT, AttemptGate, type AttemptState } from "./attempt-gate.js";
import type { Auth } from "./credentials.js";
import { networkError, unwrapResponse, type IdShape, type PermissionHint } from "./errors.js";
import { buildQuery, redactQuery, redactUrls, textOf } from "./http-text.js";
import { DEFAULT_MAX_LIST_ITEMS, DEFAULT_MAX_LIST_PAGES, ListReader, type ListReadOptions } from "./list-reader.js";
import { DEFAULT_MAX_WAIT_MS, DEFAULT_RATE_LIMIT, RateLimiter, Semaphore, type RateLimit } from "./rate-limiter.js";
import { decideRetry, DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import { type BaseUrlSource, notTheApiCause, unreachableCause } from "./run-cause.js";
import { RunStop } from "./run-stop.js";
import {
  type ClientStats,
  type CloudflareClient,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_READ_BYTES,
  type Envelope,
  type RequestOptions,
} from "./types.js";
import { ReadBudget, WireRequests } from "./wire.js";

export interface ClientOptions {
  baseUrl: string;
  /** What set baseUrl (a flag, a variable, the default), named when nothing answers there. */
  baseUrlFrom?: BaseUrlSource;
  auth: Auth;
  /** Requests in flight at once (default 8). */
  parallelism?: number;
  /** Requests per window for the whole run (default 1200 per 300 s, Cloudflare's limit). */
  rateLimit?: RateLimit;
  /** Per-attempt timeout: no headers or no body data for this long fails it (default 30000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 6). */
  retries?: number;
  log?: (line: string) => void;
  /** Extra secret values to hide; the token and key are always hidden. */
  redactor?: Pick<Redactor, "redact">;
  userAgent?: string;
  /** Random source for backoff jitter (tests). */
  random?: () => number;
  /** First backoff (default 500), doubling up to maxRetryDelayMs (default 8000). */
  retryBaseDelayMs?: number;
  maxRetryDelayMs?: number;
  maxWaitMs?: number;
  deadlineMs?: number;
  maxBodyBytes?: number;
  maxReadBytes?: number;
  now?: () => number;
  /** Told when every request must wait for the rate limit, how long and why. */
  onWait?: (ms: number, reason: string) => void;
  /** Told when one call backs off before it is tried again, how long and why. */
  onRetryWait?: (ms: number, reason: string) => void;
  /** Names the permission a refused (403) call needs; the CLI passes the sections'. */
  permissionHint?: PermissionHint;
  /** The id form under each collection, for a "malformed id" message. */
  idShapes?: readonly IdShape[];
  maxListItems?: number;
  maxListPages?: number;
  onWarning?: (line: string) => void;
}

export function createClient(opts: ClientOptions): CloudflareClient {
  const parallelism = opts.parallelism ?? 8;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const now = opts.now ?? Date.now;
  const maxWaitMs = opts.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    retries: opts.retries ?? DEFAULT_RETRY_POLICY.retries,
    random: opts.random ?? Math.random,
    ...(opts.retryBaseDelayMs !== undefined ? { baseDelayMs: opts.retryBaseDelayMs } : {}),
    ...(opts.maxRetryDelayMs !== undefined ? { maxDelayMs: opts.maxRetryDelayMs } : {}),
    maxRetryAfterMs: maxWaitMs,
  };
  const log = opts.log;
  const redactor = new Redactor();
  redactor.add("token" in opts.auth ? opts.auth.token : opts.auth.key);
  const extra = opts.redactor;
  const redact = (text: string): string => redactUrls(redactor.redact(extra ? extra.redact(text) : text));

  const limiter = new RateLimiter({
    ...(opts.rateLimit ?? DEFAULT_RATE_LIMIT),
    now,
    log: log && ((l) => log(redact(l))),
    onWait: opts.onWait,
    maxWaitMs,
    onTooLong: (ms, header) => run.stopForWait(ms, header),
  });
  const slots = new Semaphore(parallelism);
  const run = new RunStop({ now, maxWaitMs, deadlineMs: opts.deadlineMs, log, redact });
  run.abortOnStop(limiter, slots);
  const stats: ClientStats = { requests: 0, retries: 0, throttled: 0 };
  const wire = new WireRequests();
  const readBudget = new ReadBudget(opts.maxReadBytes ?? DEFAULT_MAX_READ_BYTES, run);
  const gate = new AttemptGate({
    run,
    limiter,
    stats,
    wire,
    readBudget,
    policy,
    maxBodyBytes,
    maxWaitMs,
    now,
    onRetryWait: opts.onRetryWait,
  });
  const calls = new ApiCalls({
    baseUrl: opts.baseUrl,
    baseUrlFrom: opts.baseUrlFrom,
    auth: opts.auth,
    userAgent: opts.userAgent,
    parallelism,
    timeoutMs,
    policy,
    run,
    gate,
    slots,
    stats,
    readBudget,
    maxBodyBytes,
    redact,
    log,
    permissionHint: opts.permissionHint,
    idShapes: opts.idShapes,
  });
  const lists = new ListReader({
    get: (path, query) => calls.callRead("GET", path, { query }),
    redact,
    warn: (line) => opts.onWarning?.(redact(line)),
    maxItems: opts.maxListItems ?? DEFAULT_MAX_LIST_ITEMS,
    maxPages: opts.maxListPages ?? DEFAULT_MAX_LIST_PAGES,
  });

  return {
    async request<T>(method: HttpMethod, path: string, ro?: RequestOptions): Promise<T> {
      return (await calls.call(method, path, ro)).result as T;
    },
    async requestEnvelope<T>(method: HttpMethod, path: string, ro?: RequestOptions): Promise<Envelope<T>> {
      return (await calls.call(method, path, ro)) as Envelope<T>;
    },
    paginate: <T>(path: string, po: ListReadOptions = {}) => lists.read<T>(path, "page", po),
    paginateCursor: <T>(path: string, po: ListReadOptions = {}) => lists.read<T>(path, "cursor", po),
    async listAll<T>(path: string, po: ListReadOptions = {}): Promise<T[]> {
      const out: T[] = [];
      for await (const item of lists.read<T>(path, "auto", po)) out.push(item);
      return out;
    },
    stats: () => ({ ...stats }),
    budget: () => limiter.budget(),
    stop: (err) => run.stop(err),
    stopped: () => run.stopped(),
    onTheWire: () => wire.list(),
    async close() {
      run.close();
      limiter.close();
      await calls.close();
    },
  };
}

interface CallOptions {
  baseUrl: string;
  baseUrlFrom?: BaseUrlSource;
  auth: Auth;
  userAgent?: string;
  parallelism: number;
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

class ApiCalls {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly headers: Record<string, string>;
  private readonly agent: Agent;
  private readonly dispatcher: Dispatcher;
  private apiAnswered = false;

  constructor(private readonly o: CallOptions) {
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

  async call(method: HttpMethod, path: string, ro: RequestOptions = {}): Promise<Envelope<unknown>> {
    return (await this.callRead(method, path, ro))();
  }

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
    this.o.run.assertRunning();
    const rel = path.replace(/^\/+/, "");
    // Redacted only when something is shown.
    let shown: string | undefined;
    const shownPath = () => (shown ??= this.o.redact(rel));
    const call: Call = { method, rel, ro, shownPath, shownFull: () => shownPath() + redactQuery(ro.query) };
    const state: AttemptState = {
      method,
      idempotent: ro.idempotent === true,
      attempts: 0,
      retries: 0,
      delayMs: 0,
      deadlineMs: ro.timeoutMs ?? this.o.timeoutMs,
      throttledAttempts: 0,
      throttledMs: 0,
      shown: call.shownFull,
    };
    holder.current = state;

    const release = await this.o.slots.acquire();
    const started = Date.now();
    try {
      const answer = await this.send(call, state, started);
      // The answer is in: the next call may go out while this one is parsed and checked.
      release();
      this.o.log?.(`${method} ${call.shownFull()} ${answer.status} ${Date.now() - started}ms${retriesNote(state)}`);
      return () => this.unwrap(call, state, answer);
    } finally {
      release();
    }
  }

  /** Sends until an answer is in; a body cut off is sent again from the start (undici would ask for a Range). */
  private async send(call: Call, state: AttemptState, started: number): Promise<Answer> {
    const { run, log, policy } = this.o;
    const { method, ro } = call;
    const hasBody = ro.body !== undefined;
    for (;;) {
      try {
        const res = await this.dispatcher.request({
          origin: this.origin,
          path: `${this.basePath}/${call.rel}${buildQuery(ro.query)}`,
          method,
          headers: hasBody ? { ...this.headers, "content-type": "application/json" } : this.headers,
          body: hasBody ? JSON.stringify(ro.body) : undefined,
          headersTimeout: state.deadlineMs,
          bodyTimeout: state.deadlineMs,
          retryOptions: { retry: this.o.gate.retryFor(state) },
          [ATTEMPT]: state,
        } as Dispatcher.RequestOptions);
        return { status: res.statusCode, headers: res.headers, bytes: await res.body.bytes() };
      } catch (err) {
        const e = err as Error & { code?: string };
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
          log?.(`${method} ${call.shownFull()} cut off in the body (${e.code ?? e.name}); trying again`);
          continue;
        }
        log?.(
          `${method} ${call.shownFull()} failed (${e.code ?? e.name}) ${Date.now() - started}ms${retriesNote(state)}`,
        );
        const apiUrl = `${this.origin}${this.basePath}`;
        this.stopForCause(unreachableCause(apiUrl, e.code, state.retries, this.o.baseUrlFrom));
        throw networkError({
          method,
          path: call.shownPath(),
          origin: this.origin,
          code: e.code,
          cause: this.o.redact(e.message),
          retries: state.retries,
          timeoutMs: state.deadlineMs,
          maxBodyBytes: this.o.maxBodyBytes,
        });
      }
    }
  }

  /** The answer's envelope unwrapped, or the error it says. */
  private unwrap(call: Call, state: AttemptState, answer: Answer): Envelope<unknown> {
    const { method, shownPath } = call;
    const text = textOf(answer.bytes);
    if (method === "GET") this.o.readBudget.checkAnswer(text, shownPath);
    let unwrapped: ReturnType<typeof unwrapResponse>;
    try {
      unwrapped = unwrapResponse({
        method,
        get path() {
          return shownPath();
        },
        status: answer.status,
        headers: answer.headers,
        body: text,
        retries: state.retries,
        retryAfterMs: state.retryAfterMs,
        retryAfterTooLongMs: state.retryAfterTooLongMs,
        maxRetryAfterMs: this.o.policy.maxRetryAfterMs,
        auth: "token" in this.o.auth ? "token" : "key",
        redact: this.o.redact,
        permissionHint: this.o.permissionHint,
        idShapes: this.o.idShapes,
      });
    } catch (err) {
      this.stopForCause(notTheApiCause(`${this.origin}${this.basePath}`, err));
      if (err instanceof ApiError && err.info.envelope) this.apiAnswered = true;
      throw err;
    }
    this.apiAnswered = true;
    return { result: unwrapped.result, result_info: unwrapped.result_info, status: answer.status };
  }
}

interface Call {
  method: HttpMethod;
  rel: string;
  ro: RequestOptions;
  shownPath: () => string;
  shownFull: () => string;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Uint8Array;
}

const retriesNote = (state: AttemptState) => (state.retries > 0 ? ` retries=${state.retries}` : "");
