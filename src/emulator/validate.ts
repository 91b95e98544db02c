// Body validation helpers for route handlers.
import { ApiFault, type ApiErrorBody } from "./types.js";

type FieldType = "string" | "boolean" | "number" | "integer" | "object" | "array";

export interface FieldSpec {
  type: FieldType;
  /** Allowed values (strings or numbers). */
  enum?: readonly unknown[];
  required?: boolean;
}

/** Error code used for a body that fails validation (Cloudflare uses several; clients key on 400). */
export const INVALID_BODY_CODE = 1004;

export function requireObject(body: unknown, code = INVALID_BODY_CODE): Record<string, unknown> {
  if (!isObject(body)) {
    throw new ApiFault(400, [{ code, message: "Request body must be a JSON object" }]);
  }
  return body as Record<string, unknown>;
}

export function requireFields(
  body: unknown,
  fields: Record<string, FieldSpec>,
  opts: { allowUnknown?: boolean; code?: number } = {},
): Record<string, unknown> {
  const code = opts.code ?? INVALID_BODY_CODE;
  const obj = requireObject(body, code);
  const errors: ApiErrorBody[] = [];
  for (const [name, spec] of Object.entries(fields)) {
    const value = obj[name];
    if (value === undefined) {
      if (spec.required) errors.push(fieldError(code, name, `${name} is required`));
      continue;
    }
    const problem = checkField(name, value, spec);
    if (problem) errors.push(fieldError(code, name, problem));
  }
  if (!opts.allowUnknown) {
    for (const name of Object.keys(obj)) {
      if (!(name in fields)) {
        errors.push(
          fieldError(code, name, `unknown field ${name}; accepted fields: ${Object.keys(fields).join(", ")}`),
        );
      }
    }
  }
  if (errors.length > 0) throw new ApiFault(400, errors);
  return obj;
}

function checkField(name: string, value: unknown, spec: FieldSpec): string | undefined {
  if (!matchesType(value, spec.type)) {
    return `${name} must be ${article(spec.type)} ${spec.type}, got ${describe(value)}`;
  }
  if (spec.enum && !spec.enum.includes(value)) {
    return (
      `'${String(value)}' is not a valid value for ${name}; expected one of ` +
      `${spec.enum.map((v) => JSON.stringify(v)).join(", ")}`
    );
  }
  return undefined;
}

function matchesType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    case "integer":
      return Number.isInteger(value);
    default:
      return typeof value === type;
  }
}

function fieldError(code: number, name: string, message: string): ApiErrorBody {
  return { code, message, source: { pointer: `/${name}` } };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `${typeof value} ${JSON.stringify(value)}`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? "an" : "a";
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
