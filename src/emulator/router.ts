// Matches a request path against the routes' patterns.
import { HEX_ID } from "./ids.js";
import { methodNotAllowed, routeFault } from "./envelope.js";
import type { Route } from "./types.js";

interface CompiledRoute {
  route: Route;
  segments: string[];
  /** One character per segment, "1" literal / "0" parameter, then "1" for a query condition: higher wins. */
  specificity: string;
}

export type IdShapes = Readonly<Record<string, (value: string) => boolean>>;

/** The shapes of the ids every area's paths share; parameters no shape names take any non-empty segment. */
const CORE_ID_SHAPES: IdShapes = {
  zone_id: (v) => HEX_ID.test(v),
  account_id: (v) => HEX_ID.test(v),
};

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

export class Router {
  private readonly compiled: CompiledRoute[];
  private readonly idShapes: IdShapes;

  constructor(routes: readonly Route[], idShapes: IdShapes = CORE_ID_SHAPES) {
    this.idShapes = { ...CORE_ID_SHAPES, ...idShapes };
    this.compiled = routes.map((route) => {
      const segments = route.pattern.split("/").filter((s) => s !== "");
      const specificity = segments.map((s) => (s.startsWith(":") ? "0" : "1")).join("") + (route.when ? "1" : "0");
      return { route, segments, specificity };
    });
  }

  match(method: string, path: string, query: URLSearchParams = new URLSearchParams()): RouteMatch {
    const parts = path.split("/").filter((s) => s !== "");
    const candidates: Array<{ c: CompiledRoute; params: Record<string, string> }> = [];
    for (const c of this.compiled) {
      const params = matchSegments(c.segments, parts);
      if (params) candidates.push({ c, params });
    }
    if (candidates.length === 0) throw routeFault(404, path);
    candidates.sort((a, b) => (a.c.specificity < b.c.specificity ? 1 : a.c.specificity > b.c.specificity ? -1 : 0));
    const forMethod = candidates.find((x) => x.c.route.method === method && (x.c.route.when?.(query) ?? true));
    if (!forMethod) throw methodNotAllowed(method);
    for (const [name, value] of Object.entries(forMethod.params)) {
      const check = this.idShapes[name];
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
