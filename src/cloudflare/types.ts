// The surface of the Cloudflare API client that sections, the engine and commands use; client.ts implements
// it. Spec: docs/library.md.
import type { RunStoppedError } from "../errors.js";
import type { HttpMethod } from "../model/index.js";

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  timeoutMs?: number;
  /** Changes nothing (a validating POST, a `dry_run=true` write): retried like a GET. */
  idempotent?: boolean;
}

export interface Envelope<T> {
  result: T;
  result_info?: Record<string, unknown>;
  status: number;
}

export interface CloudflareClient {
  /** One call; the unwrapped `result` (null for a 204). Throws ApiError / NetworkError. */
  request<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<T>;
  /** One call; the result with its result_info and the HTTP status. */
  requestEnvelope<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<Envelope<T>>;
  /** A page/per_page list, streamed in order; up to `lookahead` pages asked ahead (default 0). */
  paginate<T>(
    path: string,
    opts?: { query?: RequestOptions["query"]; perPage?: number; lookahead?: number },
  ): AsyncIterable<T>;
  /** A cursor list, streamed. */
  paginateCursor<T>(path: string, opts?: { query?: RequestOptions["query"]; perPage?: number }): AsyncIterable<T>;
  /** Every item of a list whose answer says how it goes on (cursor, totals, or one page). */
  listAll<T>(path: string, opts?: { query?: RequestOptions["query"]; perPage?: number }): Promise<T[]>;
  stats(): { requests: number; retries: number; throttled: number };
  /** Which token's limits a call to `path` goes through (token-router.ts); absent: one lane. */
  lane?(path: string): number;
  budget?(): { remaining: number; requests: number; seconds: number };
  /** Stops the run: nothing more is sent, waiting calls throw `reason`; calls on the wire finish. */
  stop?(reason: RunStoppedError): void;
  stopped?(): RunStoppedError | undefined;
  /** The requests sent and not yet answered, each with how it went once it has. */
  onTheWire?(): WireRequest[];
  close(): Promise<void>;
}

export interface WireOutcome {
  result: "landed" | "failed" | "unknown";
  detail: string;
}

export interface WireRequest {
  method: string;
  path: string;
  settled: Promise<WireOutcome>;
}

export interface ClientStats {
  requests: number;
  retries: number;
  throttled: number;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export const DEFAULT_MAX_READ_BYTES = 512 * 1024 * 1024;
