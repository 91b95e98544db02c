// One client per distinct token, each with its own rate limiter and budget (Cloudflare's limit is per
// user or per account-owned token: 1 200 requests / 300 s each), behind the one client interface the
// engine uses: a call goes to the client of the zone or account its path addresses (`zones/{id}/…`,
// `accounts/{id}/…`), any other call (and a zone or account with no token of its own) to the default
// client. The engine never chooses a token: every call of a unit addresses its own zone or account, so a
// zone of one account is never sent with another's token. When one client's run stops (a signal, the
// deadline, a cause every call shares), every client stops with it.
import type { RunStoppedError } from "../errors.js";
import type { CloudflareClient, RequestOptions, WireRequest } from "./types.js";

export interface TokenRoutes {
  /** The client for calls that address no zone or account of its own (lookups, the default token's zones). */
  fallback: CloudflareClient;
  /** Zone id → the client of its account's token. */
  zones: ReadonlyMap<string, CloudflareClient>;
  /** Account id → the client of its token. */
  accounts: ReadonlyMap<string, CloudflareClient>;
}

/** The zone or account a path addresses: `zones/{id}` or `accounts/{id}` and anything under it. */
export function pathScope(path: string): { scope: "zones" | "accounts"; id: string } | undefined {
  const m = /^(zones|accounts)\/([^/?]+)(?:[/?]|$)/.exec(path.replace(/^\/+/, ""));
  return m ? { scope: m[1] as "zones" | "accounts", id: m[2]! } : undefined;
}

/** The client a call to `path` goes to. */
export function clientFor(routes: TokenRoutes, path: string): CloudflareClient {
  const at = pathScope(path);
  if (!at) return routes.fallback;
  return (at.scope === "zones" ? routes.zones : routes.accounts).get(at.id) ?? routes.fallback;
}

/** The clients behind the routes, each once. */
function routedClients(routes: TokenRoutes): CloudflareClient[] {
  return [...new Set([routes.fallback, ...routes.zones.values(), ...routes.accounts.values()])];
}

/** One client over several: each call to the client of its path; stats summed, the tightest budget shown. */
export function routeByToken(routes: TokenRoutes): CloudflareClient {
  const all = routedClients(routes);
  if (all.length === 1) return routes.fallback;
  /** The first stop of any client, carried to all the others before anything more is sent. */
  const stopped = (): RunStoppedError | undefined => {
    const reason = all.map((c) => c.stopped?.()).find((r) => r !== undefined);
    if (reason) for (const c of all) if (!c.stopped?.()) c.stop?.(reason);
    return reason;
  };
  const pick = (path: string): CloudflareClient => {
    stopped();
    return clientFor(routes, path);
  };
  return {
    request: (method, path, opts?: RequestOptions) => pick(path).request(method, path, opts),
    requestEnvelope: (method, path, opts?: RequestOptions) => pick(path).requestEnvelope(method, path, opts),
    paginate: (path, opts) => pick(path).paginate(path, opts),
    paginateCursor: (path, opts) => pick(path).paginateCursor(path, opts),
    listAll: (path, opts) => pick(path).listAll(path, opts),
    lane: (path) => all.indexOf(clientFor(routes, path)),
    stats() {
      const sum = { requests: 0, retries: 0, throttled: 0 };
      for (const c of all) {
        const s = c.stats();
        sum.requests += s.requests;
        sum.retries += s.retries;
        sum.throttled += s.throttled;
      }
      return sum;
    },
    ...(all.some((c) => c.budget)
      ? {
          budget() {
            const budgets = all.flatMap((c) => (c.budget ? [c.budget()] : []));
            // The token with the least left sets the pace of its zones: shown as the run's.
            return budgets.reduce((a, b) => (b.remaining / b.requests < a.remaining / a.requests ? b : a));
          },
        }
      : {}),
    stop(reason) {
      for (const c of all) c.stop?.(reason);
    },
    stopped,
    onTheWire(): WireRequest[] {
      return all.flatMap((c) => c.onTheWire?.() ?? []);
    },
    async close() {
      await Promise.all(all.map((c) => c.close()));
    },
  };
}
