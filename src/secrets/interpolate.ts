// `${env:NAME}` interpolation of a parsed document, for its checks only.
import type { Env } from "../model/index.js";
import { ENV_NAME, canonicalTemplate, replaceTemplateTokens } from "../template.js";
import { setOwn } from "../data-record.js";
import { childPointer } from "../json-pointer.js";

interface Finding {
  pointer: string;
  message: string;
  severity?: "error" | "warning";
}
const CREDENTIAL_VARIABLES: ReadonlySet<string> = new Set(["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY"]);

export interface Interpolated {
  value: unknown;
  /** The variables referenced, in order of first use (credential variables left out). */
  names: string[];
  findings: Finding[];
  /** Pointer → the string as written, for every string that interpolation changed. */
  templates: Map<string, string>;
  templatePaths: Map<string, ReadonlyArray<string | number>>;
  /** Pointers of strings that named a missing variable (their schema errors would be noise). */
  missing: Set<string>;
}

export function interpolateEnv(
  value: unknown,
  env: Env,
  missingEnv: "error" | "warning" = "error",
  tokens: TokenPlaces = NO_TOKENS,
): Interpolated {
  const result: Interpolated = {
    value: undefined,
    names: [],
    findings: [],
    templates: new Map(),
    templatePaths: new Map(),
    missing: new Set(),
  };
  const seen = new Set<string>();
  // The keys from the root to the value visited: a pointer is made only for a string with `${`.
  const path: Array<string | number> = [];
  const visit = (v: unknown): unknown => {
    if (typeof v === "string") return v.includes("${") ? interpolateString(v, pointerOf(path)) : v;
    if (Array.isArray(v)) {
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        out[i] = visit(v[i]);
        path.pop();
      }
      return out;
    }
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) {
        path.push(k);
        setOwn(out, k, visit((v as Record<string, unknown>)[k]));
        path.pop();
      }
      return out;
    }
    return v;
  };
  const interpolateString = (s: string, pointer: string): string => {
    // A token is who applies, not what is applied: its reference stays as written, its value unread.
    if (tokens.pointers.has(pointer)) {
      result.templates.set(pointer, s);
      result.templatePaths.set(pointer, [...path]);
      return s;
    }
    let hasReference = false;
    const out = replaceTemplateTokens(s, (whole, inner) => {
      if (!inner.startsWith("env:")) {
        if (ENV_NAME.test(inner)) result.findings.push(keptAsWritten(whole, inner, pointer));
        return whole;
      }
      hasReference = true;
      return resolveReference(whole, inner.slice(4), pointer, { env, missingEnv, result, seen });
    });
    if (hasReference || out !== s) {
      result.templates.set(pointer, s);
      result.templatePaths.set(pointer, [...path]);
    }
    return out;
  };
  result.value = visit(value);
  return result;
}

function keptAsWritten(whole: string, inner: string, pointer: string): Finding {
  return {
    pointer,
    severity: "warning",
    message: `'${whole}' is kept as written; did you mean '\${env:${inner}}'? (write '$${whole}' to silence this)`,
  };
}

interface Resolving {
  env: Env;
  missingEnv: "error" | "warning";
  result: Interpolated;
  seen: Set<string>;
}

/** The value of one `${env:NAME}`, or "" with a finding when it cannot be used. */
function resolveReference(
  whole: string,
  name: string,
  pointer: string,
  { env, missingEnv, result, seen }: Resolving,
): string {
  if (!ENV_NAME.test(name)) {
    result.findings.push({
      pointer,
      message: `'${whole}' is not a valid reference: write \${env:NAME} with NAME made of letters, digits and _`,
    });
    result.missing.add(pointer);
    return "";
  }
  if (CREDENTIAL_VARIABLES.has(name)) {
    result.findings.push({
      pointer,
      message: `'${whole}' is zoneform's own API credential; it is never written into a zone (use another variable)`,
    });
    result.missing.add(pointer);
    return "";
  }
  const found = Object.hasOwn(env, name) ? env[name] : undefined;
  if (found === undefined) {
    result.findings.push(
      missingEnv === "error"
        ? { pointer, message: `environment variable ${name} is not set (referenced as \${env:${name}})` }
        : {
            pointer,
            severity: "warning",
            message:
              `environment variable ${name} is not set (referenced as \${env:${name}}); plan and ` +
              `apply will need it`,
          },
    );
    result.missing.add(pointer);
    return "";
  }
  if (!seen.has(name)) {
    seen.add(name);
    result.names.push(name);
  }
  return found;
}

/** Where the file's API tokens are (`accounts[].api_token`) and which variables hold them. */
export interface TokenPlaces {
  pointers: ReadonlySet<string>;
  /** Variable → the place that names it, as messages say it (`accounts[1].api_token`). */
  names: ReadonlyMap<string, string>;
}

const NO_TOKENS: TokenPlaces = { pointers: new Set(), names: new Map() };

function pointerOf(path: ReadonlyArray<string | number>): string {
  let pointer = "";
  for (const key of path) pointer = childPointer(pointer, key);
  return pointer;
}

export function declaredDocument(interpolated: Interpolated): unknown {
  // Copy on write: only the containers on the way to a changed string are copied.
  const copies = new Set<unknown>();
  const put = (node: unknown, path: ReadonlyArray<string | number>, at: number, template: string): unknown => {
    if (at === path.length) return template;
    const key = path[at]!;
    const copy = copies.has(node) ? node : Array.isArray(node) ? [...node] : { ...(node as Record<string, unknown>) };
    copies.add(copy);
    const record = copy as Record<string | number, unknown>;
    record[key] = put(record[key], path, at + 1, template);
    return copy;
  };
  let doc = interpolated.value;
  for (const [pointer, template] of interpolated.templates)
    doc = put(doc, interpolated.templatePaths.get(pointer)!, 0, canonicalTemplate(template));
  return doc;
}
