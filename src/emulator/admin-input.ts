// Checks admin API bodies before anything changes: types, ranges, no unknown field.
// Spec: docs/emulator.md, Admin API.
import { pathPatternProblem } from "./faults.js";

/** An admin call refused with this status and `{"error": message}` (an unknown zone, a conflict). */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A body the admin API refuses: a 400 `{"error": message}`; `problems` holds one line per field. */
export class AdminInputError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
  }
}

export interface FieldRule {
  type: "string" | "boolean" | "number" | "integer";
  required?: boolean;
  /** Inclusive bounds of a number or integer. */
  min?: number;
  max?: number;
  /** What a valid value is, for the message: "a positive integer", "a number from 0 to 1". */
  expected: string;
  /** A further check of a value of the right type: a reason when it is wrong. */
  check?: (value: never) => string | undefined;
}

export function readAdminBody(body: unknown, rules: Record<string, FieldRule>): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new AdminInputError([`the body must be a JSON object, got ${shown(body)}`]);
  }
  const obj = body as Record<string, unknown>;
  const problems: string[] = [];
  for (const [name, rule] of Object.entries(rules)) {
    const value = obj[name];
    if (value === undefined) {
      if (rule.required) problems.push(`${name} is required (${rule.expected})`);
      continue;
    }
    const problem = fieldProblem(value, rule);
    if (problem !== undefined)
      problems.push(`${name} must be ${rule.expected}, got ${shown(value)}${problem ? ` (${problem})` : ""}`);
  }
  for (const name of Object.keys(obj)) {
    if (!Object.hasOwn(rules, name))
      problems.push(`unknown field ${JSON.stringify(name)}; accepted fields: ${Object.keys(rules).join(", ")}`);
  }
  if (problems.length > 0) throw new AdminInputError(problems);
  return obj;
}

/** undefined when the value is fine; "" when it is wrong with nothing to add; else the reason. */
function fieldProblem(value: unknown, rule: FieldRule): string | undefined {
  switch (rule.type) {
    case "integer":
      if (!Number.isSafeInteger(value)) return "";
      break;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return "";
      break;
    default:
      if (typeof value !== rule.type) return "";
  }
  if (typeof value === "number") {
    if (rule.min !== undefined && value < rule.min) return "";
    if (rule.max !== undefined && value > rule.max) return "";
  }
  return rule.check ? (rule.check as (v: unknown) => string | undefined)(value) : undefined;
}

function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The longest delay a fault or the latency setting may ask for (10 minutes): longer is no test's business. */
const MAX_DELAY_MS = 600_000;

const MAX_INVENTORY_ITEMS = 1_000_000;

const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export const positiveInteger = (extra: Partial<FieldRule> = {}): FieldRule => ({
  type: "integer",
  min: 1,
  expected: "a positive integer",
  ...extra,
});

export const delayMs = (extra: Partial<FieldRule> = {}): FieldRule => ({
  type: "integer",
  min: 0,
  max: MAX_DELAY_MS,
  expected: `a whole number of milliseconds from 0 to ${MAX_DELAY_MS}`,
  ...extra,
});

export const ratio = (extra: Partial<FieldRule> = {}): FieldRule => ({
  type: "number",
  min: 0,
  max: 1,
  expected: "a number from 0 to 1",
  ...extra,
});

export const inventoryCount: FieldRule = {
  type: "integer",
  required: true,
  min: 0,
  max: MAX_INVENTORY_ITEMS,
  expected: `a whole number from 0 to ${MAX_INVENTORY_ITEMS}`,
};

export const httpMethod: FieldRule = {
  type: "string",
  expected: `an HTTP method (${HTTP_METHODS.join(", ")})`,
  check: (v: string) => ((HTTP_METHODS as readonly string[]).includes(v.toUpperCase()) ? undefined : ""),
};

export const pathPatternRule: FieldRule = {
  type: "string",
  expected: "a path pattern (plain text; ^ and $ anchor it, * is any run of characters, | separates alternatives)",
  check: (v: string) => pathPatternProblem(v),
};

/**
 * A zone name as DNS allows one: labels of 1–63 letters, digits and hyphens, neither starting nor ending with a
 * hyphen, at least two of them, at most 253 characters, a top-level label not all digits (so not an IP
 * address).
 */
function isHostname(name: string): boolean {
  if (name.length > 253) return false;
  const labels = name.split(".");
  if (labels.length < 2) return false;
  if (!labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(l))) return false;
  return !/^\d+$/.test(labels[labels.length - 1]!);
}

export const hostname: FieldRule = {
  type: "string",
  required: true,
  expected: "a hostname such as shop.example.com",
  check: (v: string) => (isHostname(v) ? undefined : ""),
};
