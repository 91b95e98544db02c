// Query parsing and filtering of the Page Shield inventory lists.
// Spec: docs/emulator.md, What it emulates.
import { badQuery, readBoolean, readEnum } from "../../query.js";

export type Item = Record<string, unknown> & { id: string };
type Predicate = (item: Item) => boolean;

const STATUSES = ["active", "infrequent", "inactive"];

function commaList(query: URLSearchParams, name: string): string[] | undefined {
  const raw = query.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** `*x`, `x*`, `*x*` and exact match, case-insensitive as hostnames are. */
function wildcardMatcher(pattern: string): (value: string) => boolean {
  const p = pattern.toLowerCase();
  const start = p.startsWith("*");
  const end = p.endsWith("*") && p.length > 1;
  const core = p.slice(start ? 1 : 0, end ? -1 : undefined);
  return (value) => {
    const v = value.toLowerCase();
    if (start && end) return v.includes(core);
    if (start) return v.endsWith(core);
    if (end) return v.startsWith(core);
    return v === core;
  };
}

function anyWildcard(patterns: string[], values: (item: Item) => string[]): Predicate {
  const matchers = patterns.map(wildcardMatcher);
  return (item) => values(item).some((v) => matchers.some((m) => m(v)));
}

function pageUrlsOf(item: Item): string[] {
  const urls = Array.isArray(item.page_urls) ? (item.page_urls as string[]) : [];
  return typeof item.first_page_url === "string" ? [item.first_page_url, ...urls] : urls;
}

export function resourceFilters(query: URLSearchParams): Predicate[] {
  const filters: Predicate[] = [];
  const statuses = commaList(query, "status") ?? ["active"];
  for (const s of statuses) {
    if (!STATUSES.includes(s))
      throw badQuery(`Invalid query parameter status: '${s}' is not one of ${STATUSES.join(", ")}`);
  }
  filters.push((item) => statuses.includes(String(item.status)));
  const hosts = commaList(query, "hosts");
  if (hosts) filters.push(anyWildcard(hosts, (item) => [String(item.host)]));
  const urls = commaList(query, "urls");
  if (urls) filters.push((item) => urls.some((u) => String(item.url).includes(u)));
  const excluded = commaList(query, "exclude_urls");
  if (excluded) filters.push((item) => !excluded.some((u) => String(item.url).includes(u)));
  const pages = commaList(query, "page_url");
  if (pages) filters.push(anyWildcard(pages, pageUrlsOf));
  if (readBoolean(query, "exclude_cdn_cgi") ?? true) filters.push((item) => item.url_contains_cdn_cgi_path !== true);
  // exclude_duplicates is accepted: the emulator's inventory has no duplicate scripts to drop.
  readBoolean(query, "exclude_duplicates");
  return filters;
}

export function cookieFilters(query: URLSearchParams): Predicate[] {
  const filters: Predicate[] = [];
  const hosts = commaList(query, "hosts");
  if (hosts) filters.push(anyWildcard(hosts, (item) => [String(item.host)]));
  const pages = commaList(query, "page_url");
  if (pages) filters.push(anyWildcard(pages, pageUrlsOf));
  const name = query.get("name");
  if (name) {
    const m = wildcardMatcher(name);
    filters.push((item) => m(String(item.name)));
  }
  for (const flag of ["secure", "http_only"] as const) {
    const want = readBoolean(query, flag);
    if (want !== undefined) filters.push((item) => Boolean(item[`${flag}_attribute`]) === want);
  }
  const sameSite = readEnum(query, "same_site", ["lax", "strict", "none"]);
  if (sameSite) filters.push((item) => item.same_site_attribute === sameSite);
  const type = readEnum(query, "type", ["first_party", "unknown"]);
  if (type) filters.push((item) => item.type === type);
  const path = query.get("path");
  if (path) filters.push((item) => item.path_attribute === path);
  const domain = query.get("domain");
  if (domain) filters.push((item) => item.domain_attribute === domain);
  return filters;
}

export function orderItems(items: Item[], query: URLSearchParams, isMalicious?: (item: Item) => boolean): Item[] {
  const orderBy = readEnum(query, "order_by", ["first_seen_at", "last_seen_at"]);
  const direction = readEnum(query, "direction", ["asc", "desc"]);
  let out = items;
  if (orderBy || direction) {
    const key = orderBy ?? "last_seen_at";
    const sign = direction === "asc" ? 1 : -1;
    out = [...items].sort((a, b) => sign * compareStrings(String(a[key]), String(b[key])));
  }
  if (isMalicious && readBoolean(query, "prioritize_malicious")) {
    out = [...out.filter(isMalicious), ...out.filter((i) => !isMalicious(i))];
  }
  return out;
}

/**
 * Cloudflare's verdict as the emulator plays it: js_integrity_score below 10 ("currently set to 10"), a
 * magecart, malware or cryptomining score below 10 (no documented number; zoneform's default), or a domain or
 * URL report. dataflow_score and obfuscation_score (deprecated) play no part.
 */
const EMULATED_SCORE_THRESHOLD = 10;
const VERDICT_SCORES = ["js_integrity_score", "magecart_score", "malware_score", "cryptomining_score"];

export function isMaliciousItem(item: Item): boolean {
  const low = VERDICT_SCORES.some((k) => typeof item[k] === "number" && (item[k] as number) < EMULATED_SCORE_THRESHOLD);
  return low || item.domain_reported_malicious === true || item.url_reported_malicious === true;
}

export function rejectExport(query: URLSearchParams): void {
  if (query.has("export"))
    throw badQuery("export=csv is not supported by the emulator; page through the JSON list instead");
}

/** ISO timestamps sort as strings; plain comparison is much faster than localeCompare on 50 000 items. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
