// Fetches the payment pages of `script_inventory.headers` as a browser requests them, for their headers
// only (PCI DSS 11.6.1). Its own connections, a plain GET with no cookie or token, the body never read,
// every fetch bounded. Headers are read as the fetch API reads them, and a session header is dropped as
// it is read. Spec: docs/commands/audit.md, "Payment page headers".
import pLimit from "p-limit";
import { createHeaderReader, type HeaderReader, type HeadersAnswer } from "../cloudflare/index.js";
import { getOwn, setOwn } from "../data-record.js";
import { isSessionHeader, pageUrlProblem } from "../sections/index.js";
import {
  guardedLookup,
  ipLiteral,
  isLoopbackHostname,
  type PageResolver,
  PrivateAddressError,
  type RefusedAddress,
  refusedAddress,
  systemResolver,
} from "./page-address.js";

export const DEFAULT_PAGE_TIMEOUT_MS = 10_000;
export const MAX_PAGE_TIMEOUT_MS = 120_000;
const MAX_PAGE_HEADER_BYTES = 64 * 1024;
const MAX_PAGE_REDIRECTS = 3;
const PAGE_FETCH_PARALLELISM = 4;
const MAX_REASON_CHARS = 300;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export type PageFetchProblem =
  | "invalid-url"
  | "insecure"
  | "private-address"
  | "timeout"
  | "headers-too-large"
  | "invalid-http"
  | "connection"
  | "redirect-off-origin"
  | "too-many-redirects"
  | "status";

interface PageHeaders {
  ok: true;
  url: string;
  final_url: string;
  status: number;
  redirects: string[];
  headers: Record<string, string>;
}

export interface PageFailure {
  ok: false;
  url: string;
  problem: PageFetchProblem;
  reason: string;
  status?: number;
  location?: string;
}

export type PageFetch = PageHeaders | PageFailure;

export interface PageFetchOptions {
  timeoutMs?: number;
  userAgent?: string;
  maxHeaderBytes?: number;
  allowPrivateAddresses?: boolean;
  resolve?: PageResolver;
}

const PRIVATE_OPT_IN =
  "--allow-private-addresses (ZONEFORM_ALLOW_PRIVATE_ADDRESSES=1; allowPrivateAddresses in the library) allows " +
  "it, for a test's own server or the emulator";

function cut(text: string, max = MAX_REASON_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function normalizeValue(value: string): string {
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
}

export function fetchHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    // A session's or a credential's header is never kept: nothing can show what was not read.
    if (value === undefined || isSessionHeader(name)) continue;
    const values = Array.isArray(value) ? value : [value];
    setOwn(out, name.toLowerCase(), values.map(normalizeValue).join(", "));
  }
  return out;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function refusedReason(refused: RefusedAddress, resolvedFrom?: string): string {
  const what = resolvedFrom
    ? `${resolvedFrom} resolves to ${refused.address}, ${refused.what}`
    : `${refused.address} is ${refused.what}`;
  return refused.always
    ? `${what}: never fetched (no web page is there)`
    : `${what}: not fetched, a payment page is on a public address; ${PRIVATE_OPT_IN}`;
}

function failureOf(err: unknown, timeoutMs: number, maxHeaderBytes: number): Pick<PageFailure, "problem" | "reason"> {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  const refused =
    err instanceof PrivateAddressError ? err : e.cause instanceof PrivateAddressError ? e.cause : undefined;
  if (refused) return { problem: "private-address", reason: refusedReason(refused.refused, refused.hostname) };
  if (
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    e.name === "TimeoutError" ||
    e.name === "AbortError" ||
    code === "UND_ERR_ABORTED"
  )
    return { problem: "timeout", reason: `no answer within ${seconds(timeoutMs)} (--page-timeout)` };
  if (code === "UND_ERR_HEADERS_OVERFLOW")
    return {
      problem: "headers-too-large",
      reason: `its headers exceed ${Math.round(maxHeaderBytes / 1024)} KiB: not read`,
    };
  if (e.name === "HTTPParserError" || code?.startsWith("HPE_"))
    return { problem: "invalid-http", reason: cut(`not a valid HTTP answer: ${e.message ?? code}`) };
  const message = e.cause?.message ?? e.message ?? String(err);
  return { problem: "connection", reason: cut(`the connection failed${code ? ` (${code})` : ""}: ${message}`) };
}

export class PageFetcher {
  private readonly reader: HeaderReader;
  private readonly timeoutMs: number;
  private readonly maxHeaderBytes: number;
  private readonly userAgent: string;
  private readonly allowPrivate: boolean;
  private readonly done = new Map<string, Promise<PageFetch>>();
  private readonly limit = pLimit(PAGE_FETCH_PARALLELISM);

  constructor(opts: PageFetchOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS;
    this.maxHeaderBytes = opts.maxHeaderBytes ?? MAX_PAGE_HEADER_BYTES;
    this.userAgent = opts.userAgent ?? "zoneform";
    this.allowPrivate = opts.allowPrivateAddresses === true;
    this.reader = createHeaderReader({
      timeoutMs: this.timeoutMs,
      maxHeaderBytes: this.maxHeaderBytes,
      lookup: guardedLookup(opts.resolve ?? systemResolver, this.allowPrivate),
    });
  }

  fetch(url: string): Promise<PageFetch> {
    let p = this.done.get(url);
    if (!p) {
      p = this.limit(() => this.fetchOnce(url));
      this.done.set(url, p);
    }
    return p;
  }

  async fetchAll(urls: readonly string[]): Promise<Map<string, PageFetch>> {
    const unique = [...new Set(urls)];
    const answers = await Promise.all(unique.map((u) => this.fetch(u)));
    return new Map(unique.map((u, i) => [u, answers[i]!]));
  }

  async close(): Promise<void> {
    await this.reader.close();
  }

  private async fetchOnce(url: string): Promise<PageFetch> {
    const problem = pageUrlProblem(url);
    if (problem) return { ok: false, url, problem: "invalid-url", reason: problem };
    const refused = targetProblem(new URL(url), this.allowPrivate);
    if (refused) return { ok: false, url, ...refused };
    // One time limit for the whole fetch, its redirects included.
    const started = performance.now();
    const redirects: string[] = [];
    let current = url;
    for (;;) {
      let answer: HeadersAnswer;
      try {
        // Only the headers matter: the body is dropped unread and its connection closed.
        answer = await this.reader.get(
          current,
          {
            "user-agent": this.userAgent,
            accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8",
            "accept-encoding": "identity",
          },
          this.timeoutMs - (performance.now() - started),
        );
      } catch (err) {
        return { ok: false, url, ...failureOf(err, this.timeoutMs, this.maxHeaderBytes) };
      }
      const status = answer.status;
      const headers = fetchHeaders(answer.headers);
      if (REDIRECT_STATUSES.has(status)) {
        const location = getOwn(headers, "location");
        let next: URL | undefined;
        try {
          next = location === undefined ? undefined : new URL(location, current);
        } catch {
          next = undefined;
        }
        if (!next)
          return {
            ok: false,
            url,
            problem: "status",
            status,
            reason: `answered ${status} without a Location a browser could follow`,
          };
        // Every hop's address is checked as the page's is, before anything else is said of it.
        const hop = targetProblem(next, this.allowPrivate);
        if (hop?.problem === "private-address")
          return {
            ok: false,
            url,
            problem: hop.problem,
            status,
            location: cut(location!),
            reason: cut(`redirected (${status}) to ${location}: ${hop.reason}`, 2 * MAX_REASON_CHARS),
          };
        if (next.origin !== new URL(current).origin)
          return {
            ok: false,
            url,
            problem: "redirect-off-origin",
            status,
            location: cut(location!),
            reason: cut(`redirected (${status}) to another origin: ${location}; not followed`),
          };
        if (redirects.length >= MAX_PAGE_REDIRECTS)
          return {
            ok: false,
            url,
            problem: "too-many-redirects",
            status,
            location: cut(location!),
            reason: `more than ${MAX_PAGE_REDIRECTS} redirects`,
          };
        current = next.href;
        redirects.push(current);
        continue;
      }
      if (status < 200 || status > 299)
        return {
          ok: false,
          url,
          problem: "status",
          status,
          reason: `answered ${status}: not the payment page`,
        };
      return { ok: true, url, final_url: current, status, redirects, headers };
    }
  }
}

export function targetProblem(target: URL, allowPrivate: boolean): Pick<PageFailure, "problem" | "reason"> | undefined {
  if (target.protocol !== "http:" && target.protocol !== "https:") return undefined;
  const ip = ipLiteral(target.hostname);
  const refused = ip && refusedAddress(ip.address, allowPrivate);
  if (refused) return { problem: "private-address", reason: refusedReason(refused) };
  if (target.protocol === "https:" || (allowPrivate && isLoopbackHostname(target.hostname))) return undefined;
  if (isLoopbackHostname(target.hostname))
    return { problem: "private-address", reason: `${target.host} is this machine: not fetched; ${PRIVATE_OPT_IN}` };
  return {
    problem: "insecure",
    reason: "served over plain http: not fetched (a payment page is served over https)",
  };
}
