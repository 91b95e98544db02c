// Logpush filters: the object form written in YAML.
// Spec: docs/configuration.md, `logs.logpush_jobs`.
import type { FilterNode, LogpushFilter } from "./types.js";

/** Documented limits of a Logpush filter ("about 30 operators and 1000 bytes"). */
export const FILTER_MAX_OPERATORS = 30;
export const FILTER_MAX_BYTES = 1000;

export const FILTER_OPERATORS = [
  "eq",
  "!eq",
  "lt",
  "leq",
  "gt",
  "geq",
  "startsWith",
  "endsWith",
  "!startsWith",
  "!endsWith",
  "contains",
  "!contains",
  "in",
  "!in",
] as const;

export const LIST_OPERATORS: ReadonlySet<string> = new Set(["in", "!in"]);

function isGroup(node: unknown, op: "and" | "or"): node is Record<typeof op, unknown[]> {
  return node !== null && typeof node === "object" && Array.isArray((node as Record<string, unknown>)[op]);
}

export function countFilterOperators(filter: LogpushFilter | FilterNode | null | undefined): number {
  if (!filter || typeof filter !== "object") return 0;
  const node = "where" in filter ? (filter as LogpushFilter).where : filter;
  const count = (n: unknown): number => {
    if (isGroup(n, "and")) return 1 + n.and.reduce((sum: number, c) => sum + count(c), 0);
    if (isGroup(n, "or")) return 1 + n.or.reduce((sum: number, c) => sum + count(c), 0);
    return n !== null && typeof n === "object" && "operator" in n ? 1 : 0;
  };
  return count(node);
}

/** Rebuilds a node with keys in a fixed order, so equal filters serialise to equal strings. */
function canonical(node: unknown): unknown {
  if (isGroup(node, "and")) return { and: node.and.map(canonical) };
  if (isGroup(node, "or")) return { or: node.or.map(canonical) };
  if (node !== null && typeof node === "object" && "key" in node) {
    const leaf = node as { key: unknown; operator: unknown; value: unknown };
    return { key: leaf.key, operator: leaf.operator, value: leaf.value };
  }
  return {};
}

/** The compact JSON string the API takes: `{"where":{"and":[{"key":…,"operator":…,"value":…}]}}`. */
export function serialiseFilter(filter: LogpushFilter | null | undefined): string {
  return JSON.stringify({ where: canonical(filter?.where ?? {}) });
}

export function filterByteLength(filter: LogpushFilter | null | undefined): number {
  return Buffer.byteLength(serialiseFilter(filter), "utf8");
}

/** Reads the API's filter string back into the object form; undefined for "no filter". */
export function parseFilterString(text: string | null | undefined): LogpushFilter | undefined {
  if (text === null || text === undefined || text.trim() === "") return undefined;
  const parsed = JSON.parse(text) as LogpushFilter;
  return isEmptyFilter(parsed) ? undefined : (canonicalFilter(parsed) as LogpushFilter);
}

function canonicalFilter(filter: LogpushFilter): LogpushFilter {
  return { where: canonical(filter.where) as LogpushFilter["where"] };
}

/** No filter: absent, null, "", `{where: {}}` or its JSON string. */
export function isEmptyFilter(filter: LogpushFilter | string | null | undefined): boolean {
  if (filter === null || filter === undefined) return true;
  if (typeof filter === "string") {
    if (filter.trim() === "") return true;
    try {
      return isEmptyFilter(JSON.parse(filter) as LogpushFilter);
    } catch {
      return false;
    }
  }
  const where = filter.where as unknown;
  return where === null || where === undefined || (typeof where === "object" && Object.keys(where).length === 0);
}
