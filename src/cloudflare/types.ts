// The surface of the Cloudflare API client that resources, the engine and commands use. The
// implementation is client.ts; tests and the engine depend only on this interface.
import type { HttpMethod } from "../model/plan.js";

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Per-request timeout in ms (default from ClientOptions). */
  timeoutMs?: number;
  /**
   * The call changes nothing (a POST that only validates, such as Logpush's destination checks), so
   * it is retried like a GET after a 5xx, a reset or a timeout.
   */
  idempotent?: boolean;
}

/** `result_info` of page-style lists. */
export interface PageInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages?: number;
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
  /**
   * Page-style list (page/per_page + result_info), streamed item by item in order. One page in memory,
   * plus up to `lookahead` pages requested ahead once the total is known (default 0).
   */
  paginate<T>(path: string, opts?: { query?: RequestOptions["query"]; perPage?: number; lookahead?: number }): AsyncIterable<T>;
  /** Cursor-style list (cursor + result_info.cursor), streamed. */
  paginateCursor<T>(path: string, opts?: { query?: RequestOptions["query"]; perPage?: number }): AsyncIterable<T>;
  /** Every item of a page-style list. */
  listAll<T>(path: string, opts?: { query?: RequestOptions["query"]; perPage?: number }): Promise<T[]>;
  /** Counters for --verbose summaries and the benchmark. */
  stats(): { requests: number; retries: number; throttled: number };
  /** What is left of the rate-limit budget in the current window (for progress); absent in test doubles. */
  budget?(): { remaining: number; requests: number; seconds: number };
  close(): Promise<void>;
}
