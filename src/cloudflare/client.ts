// The one way zoneform talks to the Cloudflare API, composed here of its parts. Built on undici: an Agent pools
// connections (capped at --parallelism) and undici's retry interceptor re-sends failed attempts. What undici has no
// building block for is written in these modules, each importing only those below it:
//   list-reader.ts   lists read whole and strictly: pages, cursors, duplicates, caps (list-ledger.ts)
//   request-loop.ts  one call: the slots, the request, a body cut off read again, failures mapped to errors
//   attempt-gate.ts  each attempt: its backoff, the run-wide rate limiter, which failures are sent again
//   wire.ts          an answer's bounds: body size, --max-read-bytes, the attempt's deadline, encoding, depth
//   run-stop.ts      stopping the run: stop() (a signal), --deadline, a wait beyond --max-wait
// Secrets (the token or key, and the values of `redactor`) are hidden from every log line and message.
import { Redactor } from "../redact.js";
import { AttemptGate } from "./attempt-gate.js";
import type { Auth } from "./credentials.js";
import type { IdShape, PermissionHint } from "./errors.js";
import { DEFAULT_MAX_LIST_ITEMS, DEFAULT_MAX_LIST_PAGES, ListReader, type ListReadOptions } from "./list-reader.js";
import { DEFAULT_MAX_WAIT_MS, DEFAULT_RATE_LIMIT, RateLimiter, Semaphore, type RateLimit } from "./rate-limiter.js";
import { RequestLoop, redactUrls } from "./request-loop.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import type { BaseUrlSource } from "./run-cause.js";
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
import type { HttpMethod } from "../model/index.js";

export type { ClientStats } from "./types.js";
export { DEFAULT_MAX_LIST_ITEMS, DEFAULT_MAX_LIST_PAGES } from "./list-reader.js";
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_READ_BYTES } from "./types.js";

export interface ClientOptions {
  baseUrl: string;
  /** What set baseUrl, named when nothing answers there (a flag, a variable, the default); absent: either. */
  baseUrlFrom?: BaseUrlSource;
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
  redactor?: Pick<Redactor, "redact">;
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
  const loop = new RequestLoop({
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
    get: (path, query) => loop.callRead("GET", path, { query }),
    redact,
    warn: (line) => opts.onWarning?.(redact(line)),
    maxItems: opts.maxListItems ?? DEFAULT_MAX_LIST_ITEMS,
    maxPages: opts.maxListPages ?? DEFAULT_MAX_LIST_PAGES,
  });

  return {
    async request<T>(method: HttpMethod, path: string, ro?: RequestOptions): Promise<T> {
      return (await loop.call(method, path, ro)).result as T;
    },
    async requestEnvelope<T>(method: HttpMethod, path: string, ro?: RequestOptions): Promise<Envelope<T>> {
      return (await loop.call(method, path, ro)) as Envelope<T>;
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
      await loop.close();
    },
  };
}
