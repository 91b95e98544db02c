// Small HTTP helpers shared by the API server and the admin API: body reading and JSON parsing with
// Cloudflare's errors, JSON answers, sleeping.
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

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
