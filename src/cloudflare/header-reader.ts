// Plain GETs whose answer's headers alone are read (the payment pages, inventory/page-fetch.ts), on an Agent
// of their own: no credential, never the API's pool. Its types are zoneform's own, so the library's
// declarations name no undici type. `lookup` is the caller's only name resolution.
// Spec: docs/pci-script-inventory.md, 6. Watch the payment pages' security headers.
import { Agent } from "undici";

interface LookupAnswer {
  address: string;
  family: number;
}

export type ConnectLookup = (
  hostname: string,
  options: { all?: boolean; family?: number | string; hints?: number },
  callback: (err: Error | null, address: string | LookupAnswer[], family?: number) => void,
) => void;

export interface HeadersAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

export interface HeaderReaderOptions {
  timeoutMs: number;
  maxHeaderBytes: number;
  lookup: ConnectLookup;
}

export interface HeaderReader {
  get(url: string, headers: Record<string, string>, timeoutMs: number): Promise<HeadersAnswer>;
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
