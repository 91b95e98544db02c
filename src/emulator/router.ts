// Matches a request path against the routes' patterns (`zones/:zone_id/page_shield/policies/:policy_id`).
// Literal segments win over parameters (so `custom_hostnames/fallback_origin` beats
// `custom_hostnames/:custom_hostname_id`), and id parameters are checked for their shape: a malformed
// id is a 400 "could not route", as Cloudflare answers it.
import { HEX_ID, UUID } from "./ids.js";
import { methodNotAllowed, routeFault } from "./envelope.js";
import type { Route } from "./types.js";

interface CompiledRoute {
  route: Route;
  segments: string[];
  /** One character per segment, "1" literal / "0" parameter: a higher string is more specific. */
  specificity: string;
}

/** The shape each id parameter must have; parameters not listed take any non-empty segment. */
export const ID_PARAM_SHAPES: Record<string, (value: string) => boolean> = {
  zone_id: (v) => HEX_ID.test(v),
  account_id: (v) => HEX_ID.test(v),
  policy_id: (v) => HEX_ID.test(v),
  script_id: (v) => HEX_ID.test(v),
  connection_id: (v) => HEX_ID.test(v),
  cookie_id: (v) => HEX_ID.test(v),
  ruleset_id: (v) => HEX_ID.test(v),
  rule_id: (v) => HEX_ID.test(v),
  // Real custom hostname ids are UUIDs; the 2024 schema says 32 characters. Accept both.
  custom_hostname_id: (v) => HEX_ID.test(v) || UUID.test(v),
  job_id: (v) => /^[0-9]+$/.test(v),
};

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => {
      const segments = route.pattern.split("/").filter((s) => s !== "");
      return { route, segments, specificity: segments.map((s) => (s.startsWith(":") ? "0" : "1")).join("") };
    });
  }

  /** The route for `method path`, or throws the ApiFault Cloudflare would answer (400/404/405). */
  match(method: string, path: string): RouteMatch {
    const parts = path.split("/").filter((s) => s !== "");
    const candidates: Array<{ c: CompiledRoute; params: Record<string, string> }> = [];
    for (const c of this.compiled) {
      const params = matchSegments(c.segments, parts);
      if (params) candidates.push({ c, params });
    }
    if (candidates.length === 0) throw routeFault(404, path);
    candidates.sort((a, b) => (a.c.specificity < b.c.specificity ? 1 : a.c.specificity > b.c.specificity ? -1 : 0));
    const forMethod = candidates.find((x) => x.c.route.method === method);
    if (!forMethod) throw methodNotAllowed(method);
    for (const [name, value] of Object.entries(forMethod.params)) {
      const check = ID_PARAM_SHAPES[name];
      if (check && !check(value)) throw routeFault(400, path);
    }
    return { route: forMethod.c.route, params: forMethod.params };
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(":")) {
      try {
        params[p.slice(1)] = decodeURIComponent(v);
      } catch {
        return undefined;
      }
    } else if (p !== v) {
      return undefined;
    }
  }
  return params;
}
