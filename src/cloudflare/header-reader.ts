// Plain GETs of any URL whose answer's headers alone are read (the payment pages' headers, inventory/page-fetch.ts),
// sent with the client's undici classes (./undici.ts) rather than undici's whole package, which the fetch API,
// WebSocket, caches and mocks would come with. Its own Agent: no credential, no API header, never the API's pool.
// Its types are zoneform's own, so that the library's declarations name no undici or Node.js type. Where it may
// connect is its caller's to say: `lookup` is every connection's only name resolution (net.connect's `lookup`).
import { Agent } from "undici";

/** One address as a socket's lookup hands it on. */
interface LookupAnswer {
  address: string;
  family: number;
}

/** net.connect's `lookup`: with `all`, every address as a list; else one address and its family. */
export type ConnectLookup = (
  hostname: string,
  options: { all?: boolean; family?: number | string; hints?: number },
  callback: (err: Error | null, address: string | LookupAnswer[], family?: number) => void,
) => void;

/** An answer's status and its headers as undici gives them (names in lower case; a repeated header: its values). */
export interface HeadersAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

export interface HeaderReaderOptions {
  /** The connection, the wait for the headers and each one GET: within this many ms. */
  timeoutMs: number;
  /** The largest head read; a larger one fails the GET (undici's UND_ERR_HEADERS_OVERFLOW). */
  maxHeaderBytes: number;
  /** Resolves each connection's host name (an IP literal is never looked up: its caller checks it). */
  lookup: ConnectLookup;
}

export interface HeaderReader {
  /**
   * GETs `url` on a connection of its own (closed once the headers are in: nothing of the body is read) with
   * `headers`, within `timeoutMs`. Throws undici's errors (their `code`) and an AbortError on the timeout.
   */
  get(url: string, headers: Record<string, string>, timeoutMs: number): Promise<HeadersAnswer>;
  /** Closes every connection. */
  close(): Promise<void>;
}

export function createHeaderReader(opts: HeaderReaderOptions): HeaderReader {
  const agent = new Agent({
    // A name is resolved only by `lookup`, whose answer is the address connected to.
    connect: { timeout: opts.timeoutMs, lookup: opts.lookup },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    maxHeaderSize: opts.maxHeaderBytes,
  });
  return {
    async get(url, headers, timeoutMs) {
      const at = new URL(url);
      const answer = await agent.request({
        origin: at.origin,
        path: `${at.pathname}${at.search}`,
        method: "GET",
        signal: AbortSignal.timeout(Math.max(1, Math.floor(timeoutMs))),
        // One request per connection (Connection: close): nothing of the answer is read after its headers.
        reset: true,
        headers,
      });
      answer.body.on("error", () => undefined);
      answer.body.destroy();
      return { status: answer.statusCode, headers: answer.headers };
    },
    async close() {
      await agent.destroy().catch(() => undefined);
    },
  };
}
