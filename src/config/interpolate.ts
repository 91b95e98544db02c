// `${env:NAME}` interpolation on the parsed document's string values (keys are never interpolated), so
// positions stay those of the YAML source. `$${env:NAME}` writes the text `${env:NAME}` literally.
// Every value taken from the environment is recorded as a secret: it is shown as (sensitive) everywhere.
import type { SecretRef } from "../model/desired.js";
import { childPointer, type Finding } from "./problems.js";

const REFERENCE = /\$(\$?)\{([^}]*)\}/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** zoneform's own credentials: a file (or an edited plan) must never write them into a zone. */
export const CREDENTIAL_VARIABLES: ReadonlySet<string> = new Set(["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY"]);

export interface Interpolated {
  value: unknown;
  secrets: SecretRef[];
  findings: Finding[];
  /** Pointer → the string as written, for every string that interpolation changed. */
  templates: Map<string, string>;
  /** Pointers of strings that named a missing variable (their schema errors would be noise). */
  missing: Set<string>;
}

/**
 * `missingEnv: "warning"` (validate without --require-env) reports an unset variable as a warning and
 * goes on with an empty value: the file's shape can be checked without the secrets at hand.
 */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv, missingEnv: "error" | "warning" = "error"): Interpolated {
  const result: Interpolated = { value: undefined, secrets: [], findings: [], templates: new Map(), missing: new Set() };
  const seen = new Set<string>();
  const visit = (v: unknown, pointer: string): unknown => {
    if (typeof v === "string") return interpolateString(v, pointer);
    if (Array.isArray(v)) return v.map((item, i) => visit(item, childPointer(pointer, i)));
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[k] = visit(item, childPointer(pointer, k));
      return out;
    }
    return v;
  };
  const interpolateString = (s: string, pointer: string): string => {
    if (!s.includes("${")) return s;
    let hasReference = false;
    const out = s.replace(REFERENCE, (whole, escape: string, inner: string) => {
      if (escape) return whole.slice(1);
      if (!inner.startsWith("env:")) {
        if (ENV_NAME.test(inner)) {
          result.findings.push({
            pointer,
            severity: "warning",
            message: `'${whole}' is kept as written; did you mean '\${env:${inner}}'? (write '$${whole}' to silence this)`,
          });
        }
        return whole;
      }
      hasReference = true;
      const name = inner.slice(4);
      if (!ENV_NAME.test(name)) {
        result.findings.push({ pointer, message: `'${whole}' is not a valid reference: write \${env:NAME} with NAME made of letters, digits and _` });
        result.missing.add(pointer);
        return "";
      }
      if (CREDENTIAL_VARIABLES.has(name)) {
        result.findings.push({ pointer, message: `'${whole}' is zoneform's own API credential; it is never written into a zone (use another variable)` });
        result.missing.add(pointer);
        return "";
      }
      const found = env[name];
      if (found === undefined) {
        result.findings.push(
          missingEnv === "error"
            ? { pointer, message: `environment variable ${name} is not set (referenced as \${env:${name}})` }
            : { pointer, severity: "warning", message: `environment variable ${name} is not set (referenced as \${env:${name}}); plan and apply will need it` },
        );
        result.missing.add(pointer);
        return "";
      }
      if (!seen.has(name)) {
        seen.add(name);
        result.secrets.push({ name, value: found });
      }
      return found;
    });
    if (hasReference || out !== s) result.templates.set(pointer, s);
    return out;
  };
  result.value = visit(value, "");
  return result;
}

/**
 * The document as written: the interpolated one with every string that interpolation changed put back
 * as it was (`${env:NAME}` references and `$${` escapes kept), so it can be interpolated again later.
 */
export function declaredDocument(interpolated: Interpolated): unknown {
  const restore = (v: unknown, pointer: string): unknown => {
    if (typeof v === "string") return interpolated.templates.get(pointer) ?? v;
    if (Array.isArray(v)) return v.map((item, i) => restore(item, childPointer(pointer, i)));
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, restore(item, childPointer(pointer, k))]));
    }
    return v;
  };
  return restore(interpolated.value, "");
}

/** Every string that holds a real `${env:…}` reference: its interpolated value and its template. */
export function templatedValues(interpolated: Interpolated): Array<{ value: string; template: string }> {
  const out: Array<{ value: string; template: string }> = [];
  const visit = (v: unknown, pointer: string): void => {
    if (typeof v === "string") {
      const template = interpolated.templates.get(pointer);
      if (template !== undefined && hasEnvReference(template)) out.push({ value: v, template });
      return;
    }
    if (Array.isArray(v)) v.forEach((item, i) => visit(item, childPointer(pointer, i)));
    else if (v !== null && typeof v === "object") for (const [k, item] of Object.entries(v)) visit(item, childPointer(pointer, k));
  };
  visit(interpolated.value, "");
  return out;
}

/** True when the text holds at least one `${env:NAME}` reference (not an escaped one). */
export function hasEnvReference(text: string): boolean {
  for (const m of text.matchAll(REFERENCE)) if (!m[1] && m[2]?.startsWith("env:")) return true;
  return false;
}
