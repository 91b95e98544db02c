// Page-style pagination shared by the list endpoints: `page`, `per_page`, `result_info`.
import { ApiFault } from "./types.js";

export interface PageBounds {
  /** Smallest accepted per_page (Page Shield 1, custom hostnames 5). */
  min: number;
  /** Largest accepted per_page (Page Shield 100, custom hostnames 50). */
  max: number;
  /** per_page when the query has none. */
  default: number;
}

export interface PageRequest {
  page: number;
  per_page: number;
}

export interface PageResultInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages: number;
  [extra: string]: unknown;
}

/** Reads `page` and `per_page`; an out-of-bounds or non-integer value is a 400 like the real API's. */
export function readPageRequest(query: URLSearchParams, bounds: PageBounds): PageRequest {
  const page = readInteger(query, "page", 1);
  const perPage = readInteger(query, "per_page", bounds.default);
  if (page < 1) throw badParam("page", `must be an integer of at least 1, got ${query.get("page")}`);
  if (perPage < bounds.min || perPage > bounds.max) {
    throw badParam(
      "per_page",
      `must be an integer between ${bounds.min} and ${bounds.max}, got ${query.get("per_page")}`,
    );
  }
  return { page, per_page: perPage };
}

export function paginate<T>(items: readonly T[], req: PageRequest): { result: T[]; result_info: PageResultInfo } {
  const start = (req.page - 1) * req.per_page;
  const result = items.slice(start, start + req.per_page);
  return {
    result,
    result_info: {
      page: req.page,
      per_page: req.per_page,
      count: result.length,
      total_count: items.length,
      total_pages: Math.ceil(items.length / req.per_page),
    },
  };
}

function readInteger(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  if (!/^-?\d+$/.test(raw)) throw badParam(name, `must be an integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function badParam(name: string, detail: string): ApiFault {
  // The real API answers a bad query parameter with 400 and a message naming the parameter.
  return new ApiFault(400, [{ code: 1004, message: `Invalid query parameter ${name}: ${detail}` }]);
}
