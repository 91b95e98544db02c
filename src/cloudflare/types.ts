// The surface of the Cloudflare API client that resources, the engine and commands use. The
// implementation is client.ts (composing its parts); tests and the engine depend only on this interface.
import type { RunStoppedError } from "../errors.js";
import type { HttpMethod } from "../model/index.js";

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Per-request timeout in ms (default from ClientOptions). */
  timeoutMs?: number;
  /**
   * The call changes nothing (a POST that only validates, such as Logpush's destination checks, or a
   * write sent with `dry_run=true`), so it is retried like a GET after a 5xx, a reset or a timeout.
   */
  idempotent?: boolean;
}

export interface Envelope<T> {
  result: T;
  result_info?: Record<string, unknown>;
  status: number;
}

export interface CloudflareClient {
  /** One call; returns the unwrapped `result` (null for a 204). Throws ApiError / NetworkError. */
  request<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<T>;
  /** One call; returns the envelope's result with its result_info and the HTTP status. */
  requestEnvelope<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<Envelope<T>>;
  /*
   * Lists are read whole and strictly (list-reader.ts): to the end their totals or cursor announce,
   * an empty page the totals say should hold items asked once more and then an error, an item answered
   * twice (same id) folded with a warning (ClientOptions.onWarning) when identical and an error when
   * not, and the caps (ClientOptions.maxListItems, maxListPages) ending a runaway list with an error.
   */
  /**
   * Page-style list (page/per_page + result_info), streamed item by item in order. One page in memory,
   * plus up to `lookahead` pages requested ahead once the total is known (default 0).
   */
  paginate<T>(
    path: string,
    opts?: { query?: RequestOptions["query"]; perPage?: number; lookahead?: number },
  ): AsyncIterable<T>;
  /** Cursor-style list (cursor + result_info.cursor), streamed. */
  paginateCursor<T>(path: string, opts?: { query?: RequestOptions["query"]; perPage?: number }): AsyncIterable<T>;
  /**
   * Every item of any list. The first call carries `query` (and page=1&per_page when `perPage` is
   * given); the answer says how the list goes on: a non-empty result_info.cursor by cursor, totals
   * announcing more pages by page=2… with the per_page it answered, no result_info means the whole list.
   */
  listAll<T>(path: string, opts?: { query?: RequestOptions["query"]; perPage?: number }): Promise<T[]>;
  /** Counters for --verbose summaries and the benchmark. */
  stats(): { requests: number; retries: number; throttled: number };
  /**
   * Which of its own limits (a token's rate limiter and slots) a call to `path` goes through, when it has
   * several (token-router.ts): callers keep work of one lane from holding up another's. Absent: one lane.
   */
  lane?(path: string): number;
  /** What is left of the rate-limit budget in the current window (for progress); absent in test doubles. */
  budget?(): { remaining: number; requests: number; seconds: number };
  /**
   * Stops the run (a signal): from now on no attempt is sent, and every call not yet sent, or waiting
   * for a slot, the rate limit or a backoff, throws `reason` at once. Attempts on the wire finish.
   */
  stop?(reason: RunStoppedError): void;
  /** Why the run was stopped (stop(), the deadline, a wait beyond the cap), or undefined. */
  stopped?(): RunStoppedError | undefined;
  /** The requests on the wire now (sent, not yet answered), each with how it went once it has. */
  onTheWire?(): WireRequest[];
  close(): Promise<void>;
}

/** How a request went: made (2xx), refused (4xx, or never sent), or unknown (5xx, no answer). */
export interface WireOutcome {
  result: "landed" | "failed" | "unknown";
  detail: string;
}

/** A request sent and not yet answered. */
export interface WireRequest {
  method: string;
  /** Path and query as the log shows them (redacted). */
  path: string;
  /** Resolves once its answer's status (or its failure) is known. */
  settled: Promise<WireOutcome>;
}

/** What a client counted: every HTTP attempt, its retries, and the 429s. */
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
