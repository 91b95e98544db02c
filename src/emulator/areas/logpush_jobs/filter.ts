// Logpush job filters.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import { LOGPUSH_CODE } from "./destination.js";
import { ApiFault } from "../../types.js";
import { isObject } from "../../validate.js";

const FILTER_OPERATORS = [
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
const MAX_FILTER_OPERATORS = 30;
const MAX_FILTER_BYTES = 1000;

/**
 * Validates a filter and returns it as stored: compact JSON (the API re-serialises it, so clients must compare
 * parsed filters), or null for no filter (`""` or none).
 */
export function normalizeFilter(raw: unknown, fields: readonly string[] | undefined): string | null {
  if (raw === null) throw filterFault('filter must be a string; null is not accepted (send "" to remove a filter)');
  if (raw === undefined || raw === "") return null;
  if (typeof raw !== "string")
    throw filterFault('filter must be a JSON string such as {"where":{...}}, not a JSON object');
  const bytes = Buffer.byteLength(raw, "utf8");
  if (bytes > MAX_FILTER_BYTES)
    throw filterFault(`filter is ${bytes} bytes long; the limit is ${MAX_FILTER_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw filterFault(`filter is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(parsed) || !("where" in parsed)) throw filterFault('filter must be a JSON object with the key "where"');
  if (!isObject(parsed.where)) throw filterFault("filter.where must be an object");
  const count = Object.keys(parsed.where).length === 0 ? 0 : countOperators(parsed.where, "where", fields);
  if (count > MAX_FILTER_OPERATORS)
    throw filterFault(`filter has ${count} operators; the limit is ${MAX_FILTER_OPERATORS}`);
  return JSON.stringify(parsed);
}

function countOperators(node: unknown, at: string, fields: readonly string[] | undefined): number {
  if (!isObject(node)) throw filterFault(`${at} must be an object`);
  const group = "and" in node ? "and" : "or" in node ? "or" : undefined;
  if (group) {
    const items = node[group];
    if (Object.keys(node).length !== 1) throw filterFault(`${at} must hold only "${group}"`);
    if (!Array.isArray(items) || items.length === 0) throw filterFault(`${at}.${group} must be a non-empty array`);
    return 1 + items.reduce((n: number, item, i) => n + countOperators(item, `${at}.${group}[${i}]`, fields), 0);
  }
  const { key, operator, value } = node;
  if (typeof key !== "string" || key === "") throw filterFault(`${at} needs a "key" (a log field name), or "and"/"or"`);
  if (fields && !fields.includes(key)) throw filterFault(`${at}.key ${key} is not a field of this dataset`);
  if (typeof operator !== "string" || !(FILTER_OPERATORS as readonly string[]).includes(operator)) {
    throw filterFault(`${at}.operator ${JSON.stringify(operator)} is not one of ${FILTER_OPERATORS.join(", ")}`);
  }
  if (operator === "in" || operator === "!in") {
    if (!Array.isArray(value) || !value.every(isScalar))
      throw filterFault(`${at}.value must be an array of values for operator ${operator}`);
  } else if (!isScalar(value)) {
    throw filterFault(`${at}.value must be a string, number or boolean for operator ${operator}`);
  }
  return 1;
}

function isScalar(v: unknown): boolean {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

function filterFault(message: string): ApiFault {
  return new ApiFault(400, [{ code: LOGPUSH_CODE.invalid, message, source: { pointer: "/filter" } }]);
}
