// Turns ajv's errors into messages a person reads: "unknown key 'polices'; did you mean 'policies'?", "must be one
// of: log, allow (got 'block')".
import type { ErrorObject } from "ajv";
import { closest, distance } from "fastest-levenshtein";
import { redactDestination } from "../redact.js";
import { isRefusal } from "./defaults-schema.js";
import { childPointer, describeValue, type Finding } from "./problems.js";

export function ajvErrorsToFindings(errors: ErrorObject[], redact?: (text: string) => string): Finding[] {
  const folded = errors.filter((e) => isFolding(e));
  const kept = errors.filter((e) => {
    if (e.keyword === "if") return false;
    return !folded.some(
      (f) => f !== e && e.schemaPath.startsWith(`${f.schemaPath}/`) && e.instancePath.startsWith(f.instancePath),
    );
  });

  const findings: Finding[] = [];
  const suggested = new Set<string>();
  for (const e of kept) {
    if (e.keyword === "additionalProperties") {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      const properties = (e.parentSchema?.properties as Record<string, unknown> | undefined) ?? {};
      // A key listed only to say why it is refused (defaults' zone_id) is not allowed.
      const allowed = Object.keys(properties).filter((k) => !isRefusal(properties[k]));
      const suggestion = suggestKey(key, allowed);
      if (suggestion) suggested.add(childPointer(e.instancePath, suggestion));
      findings.push({
        pointer: childPointer(e.instancePath, key),
        at: "key",
        message: suggestion
          ? `unknown key '${key}'; did you mean '${suggestion}'?`
          : `unknown key '${key}'; allowed here: ${allowed.join(", ")}`,
      });
    } else {
      findings.push({ pointer: e.instancePath, message: messageFor(e, redact) });
    }
  }
  // A misspelt required key is one mistake: keep "did you mean", drop "missing required key".
  const deduped = findings.filter(
    (f) =>
      !(
        f.message.startsWith("missing required key") && suggested.has(childPointer(f.pointer, requiredKeyOf(f.message)))
      ),
  );
  const unique = new Map(deduped.map((f) => [`${f.pointer}\u0000${f.message}`, f]));
  return [...unique.values()];
}

function isFolding(e: ErrorObject): boolean {
  return typeof e.parentSchema?.errorMessage === "string" && (e.keyword === "anyOf" || e.keyword === "oneOf");
}

function requiredKeyOf(message: string): string {
  return /'([^']*)'/.exec(message)?.[1] ?? "";
}

/** The closest allowed key, if it is close enough to be a misspelling. */
function suggestKey(key: string, allowed: string[]): string | undefined {
  if (allowed.length === 0) return undefined;
  const lower = allowed.find((a) => a.toLowerCase() === key.toLowerCase());
  if (lower) return lower;
  const best = closest(key, allowed);
  return distance(key, best) <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

function messageFor(e: ErrorObject, redact?: (text: string) => string): string {
  const params = e.params as Record<string, unknown>;
  // A destination's credentials never reach a message, even one about a malformed destination.
  const data =
    e.instancePath.endsWith("/destination_conf") && typeof e.data === "string" ? redactDestination(e.data) : e.data;
  const got = describeValue(data, redact);
  const custom = e.parentSchema?.errorMessage;
  if (typeof custom === "string" && e.keyword !== "type" && e.keyword !== "required") {
    return e.data !== null && typeof e.data === "object" ? custom : `${custom} (got ${got})`;
  }
  switch (e.keyword) {
    case "required":
      return `missing required key '${String(params.missingProperty)}'`;
    case "enum": {
      const values = (params.allowedValues as unknown[]).map((v) => (v === "" ? '""' : String(v)));
      return `must be one of: ${values.join(", ")} (got ${got})`;
    }
    case "const":
      return `must be ${JSON.stringify(params.allowedValue)} (got ${got})`;
    case "type": {
      const expected = String(params.type).split(",").map(typeName).join(" or ");
      const hint =
        String(params.type).includes("string") && (typeof e.data === "number" || typeof e.data === "boolean")
          ? "; put it in quotes"
          : "";
      return (
        `must be ${expected} (got ` +
        `${typeOfValue(e.data)}${e.data !== null && typeof e.data !== "object" ? ` ${got}` : ""})${hint}`
      );
    }
    case "minimum":
    case "exclusiveMinimum":
    case "maximum":
    case "exclusiveMaximum": {
      const sign = { minimum: "≥", exclusiveMinimum: ">", maximum: "≤", exclusiveMaximum: "<" }[e.keyword];
      return `must be ${sign} ${String(params.limit)} (got ${got})`;
    }
    case "minLength":
      return params.limit === 1 ? "must not be empty" : `must be at least ${String(params.limit)} characters long`;
    case "maxLength":
      return (
        `must be at most ${String(params.limit)} characters long (got ` +
        `${typeof e.data === "string" ? e.data.length : "?"})`
      );
    case "minItems":
      return params.limit === 1 ? "must not be an empty list" : `must have at least ${String(params.limit)} items`;
    case "maxItems":
      return `must have at most ${String(params.limit)} items`;
    case "uniqueItems": {
      const data = e.data as unknown[];
      return (
        `must not repeat ${describeValue(data[Number(params.j)], redact)} (items ${String(params.j)} ` +
        `and ${String(params.i)})`
      );
    }
    case "maxProperties":
    case "minProperties":
      return e.message ?? "has the wrong number of keys";
    case "pattern":
      return `must match ${String(params.pattern)} (got ${got})`;
    case "format":
      return `must be a valid ${String(params.format)} (got ${got})`;
    case "anyOf":
    case "oneOf":
      return `does not match any allowed form (got ${got})`;
    default:
      return e.message ?? `is invalid (${e.keyword})`;
  }
}

function typeName(t: string): string {
  return (
    {
      string: "a string",
      number: "a number",
      integer: "an integer",
      boolean: "true or false",
      array: "a list",
      object: "a mapping",
      null: "empty",
    }[t] ?? t
  );
}

function typeOfValue(v: unknown): string {
  if (v === null || v === undefined) return "nothing";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}
