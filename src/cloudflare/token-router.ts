// One client per distinct token, each with its own rate limit (Cloudflare's is per token), behind one
// interface: a call goes to the client of the zone or account its path names, else the default. When one
// client's run stops, every client stops. Spec: docs/connecting.md, Credentials and endpoint.
import type { RunStoppedError } from "../errors.js";
import type { CloudflareClient, RequestOptions, WireRequest } from "./types.js";

export interface TokenRoutes {
  fallback: CloudflareClient;
  zones: ReadonlyMap<string, CloudflareClient>;
  accounts: ReadonlyMap<string, CloudflareClient>;
}

export function pathScope(path: string): { scope: "zones" | "accounts"; id: string } | undefined {
  const m = /^(zones|accounts)\/([^/?]+)(?:[/?]|$)/.exec(path.replace(/^\/+/, ""));
  return m ? { scope: m[1] as "zones" | "accounts", id: m[2]! } : undefined;
}

export function clientFor(routes: TokenRoutes, path: string): CloudflareClient {
  const at = pathScope(path);
  if (!at) return routes.fallback;
  return (at.scope === "zones" ? routes.zones : routes.accounts).get(at.id) ?? routes.fallback;
}

function routedClients(routes: TokenRoutes): CloudflareClient[] {
  return [...new Set([routes.fallback, ...routes.zones.values(), ...routes.accounts.values()])];
}

export function routeByToken(routes: TokenRoutes): CloudflareClient {
  const all = routedClients(routes);
  if (all.length === 1) return routes.fallback;
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
