// The surface of the Cloudflare API client that sections, the engine and commands use; client.ts implements
// it. Spec: docs/library.md.
import type { RunStoppedError } from "../errors.js";
import type { HttpMethod } from "../model/index.js";

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  timeoutMs?: number;
  idempotent?: boolean;
}

export interface Envelope<T> {
  result: T;
  result_info?: Record<string, unknown>;
  status: number;
}

export interface CloudflareClient {
  request<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<T>;
  requestEnvelope<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<Envelope<T>>;
  paginate<T>(
    path: string,
    opts?: { query?: RequestOptions["query"]; perPage?: number; lookahead?: number },
  ): AsyncIterable<T>;
  paginateCursor<T>(path: string, opts?: { query?: RequestOptions["query"]; perPage?: number }): AsyncIterable<T>;
  listAll<T>(path: string, opts?: { query?: RequestOptions["query"]; perPage?: number }): Promise<T[]>;
  stats(): { requests: number; retries: number; throttled: number };
  lane?(path: string): number;
  budget?(): { remaining: number; requests: number; seconds: number };
  stop?(reason: RunStoppedError): void;
  stopped?(): RunStoppedError | undefined;
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
