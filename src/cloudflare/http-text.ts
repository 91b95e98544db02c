// A call's text: its query string as sent and as logged (secrets hidden), and its answer's body decoded.
// Spec: docs/secrets.md, Where each value may go.
import { SENSITIVE, isSecretParam, redactDestination } from "../redact.js";
import type { RequestOptions } from "./types.js";

type Query = RequestOptions["query"];

// Decoded here from bytes, not awaited as body.text(): awaited texts outlived V8's young generation and grew
// a long list read's peak memory (issue 39). Same decoding as body.text(): UTF-8, a leading BOM dropped.
export function textOf(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bom = buf.length > 2 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  return buf.toString("utf8", bom ? 3 : 0);
}

export function buildQuery(query: Query): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : "";
}

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

export function redactUrls(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*\?[^\s"'<>]*/gi, (url) => redactDestination(url));
}
