// Small HTTP helpers shared by the API server and the admin API.
import type { IncomingMessage, ServerResponse } from "node:http";
import { contentTypeFault, malformedJsonFault } from "./envelope.js";
import type { ApiFault } from "./types.js";

export function sendJson(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  const text = jsonText(body);
  res
    .writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) })
    .end(text);
}

/** JSON text; a bigint (a list shape's id beyond 2^53) is written as a raw JSON number of its exact digits. */
function jsonText(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    const marked = JSON.stringify(body, (_k, v: unknown) => (typeof v === "bigint" ? `\u0000bigint:${v}` : v));
    return marked.replace(/"\\u0000bigint:(-?\d+)"/g, "$1");
  }
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; fault: ApiFault };

/** Parses a JSON body; an empty body is `undefined`, a non-JSON content type or bad JSON a fault. */
export function parseBody(raw: string, contentType: string | undefined): ParsedBody {
  if (raw.trim() === "") return { ok: true, value: undefined };
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") return { ok: false, fault: contentTypeFault() };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false, fault: malformedJsonFault() };
  }
}

/** The largest API request body read (a real write of these APIs is a few KiB). */
export const MAX_API_BODY_BYTES = 8 * 1024 * 1024;
/** The largest admin request body read (a whole state document, a recorded answer). */
export const MAX_ADMIN_BODY_BYTES = 64 * 1024 * 1024;
/** How long a request body may take to arrive, once its headers are in (default). */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** A request body refused while it was read: too large (413) or too slow (408). */
export class BodyError extends Error {
  constructor(
    readonly status: 408 | 413,
    message: string,
  ) {
    super(message);
  }
}

export function readBody(req: IncomingMessage, limits: { maxBytes: number; timeoutMs: number }): Promise<string> {
  const announced = Number(req.headers["content-length"] ?? "0");
  if (announced > limits.maxBytes) return Promise.reject(tooLarge(limits.maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const finish = (err?: BodyError) => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      if (err) {
        // Stop reading what is left: the answer goes out, then the connection is closed.
        req.pause();
        reject(err);
      } else resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) finish(tooLarge(limits.maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = () => finish(new BodyError(408, "the request body was cut off"));
    const timer = setTimeout(
      () => finish(new BodyError(408, `the request body did not arrive within ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

function tooLarge(maxBytes: number): BodyError {
  return new BodyError(413, `the request body is larger than the ${maxBytes} bytes the emulator reads`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
