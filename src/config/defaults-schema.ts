// The schema of `defaults:`, derived from the zone's so that it follows every section's fragment.
// Spec: docs/configuration.md, defaults.
import { DEFAULTS_KEY, IDENTITY_KEYS, zoneOnlyPaths } from "./defaults.js";

type Json = Record<string, any>;

/** The suffix of a definition's copy for defaults: `owasp` → `owaspDefault`. */
const COPY_SUFFIX = "Default";

function refusal(message: string): Json {
  return { description: `Not allowed here: ${message}.`, not: {}, errorMessage: message };
}

/** Whether a property's schema is a refusal (listed to say why, never allowed). */
export function isRefusal(schema: unknown): boolean {
  const s = schema as Json | undefined;
  return typeof s?.errorMessage === "string" && typeof s.not === "object" && Object.keys(s.not ?? {}).length === 0;
}

/** The published schema with `defaults` at the top level, before `zones`, and its definitions. */
export function withDefaultsSchema(schema: Json): Json {
  const defs = schema.$defs as Json;
  const refused = zoneOnlyPaths();
  const copies: Json = {};
  const copyPaths = new Map<string, string>();
  // A definition that reaches itself through mappings is kept as it is there (no endless copy).
  const visiting = new Set<string>();

  /** The schema of `node` (at `path` under a zone) as defaults hold it. */
  const partial = (node: Json, path: string): Json => {
    if (typeof node.$ref === "string") {
      const name = /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1];
      const def = name === undefined ? undefined : (defs[name] as Json | undefined);
      if (name === undefined || def === undefined || visiting.has(name)) return node;
      visiting.add(name);
      const copy = partial(def, path);
      visiting.delete(name);
      if (copy === def) return node;
      const copyName = `${name}${COPY_SUFFIX}`;
      const seen = copyPaths.get(copyName);
      if (seen !== undefined && seen !== path)
        throw new Error(`$defs/${name} is reached at ${seen} and ${path}: defaults cannot copy it once for both`);
      if (copyName in defs)
        throw new Error(`$defs/${copyName} exists: the copy of ${name} for defaults needs the name`);
      copyPaths.set(copyName, path);
      copies[copyName] = copy;
      return { ...node, $ref: `#/$defs/${copyName}` };
    }
    if (node.type !== "object" || typeof node.properties !== "object") return node;
    let changed = Array.isArray(node.required);
    const properties: Json = {};
    for (const [key, child] of Object.entries(node.properties as Json)) {
      const at = path ? `${path}.${key}` : key;
      const reason = refused.get(at);
      properties[key] = reason === undefined ? partial(child as Json, at) : refusal(zoneOnlyMessage(at, reason));
      changed ||= properties[key] !== child;
    }
    if (!changed) return node;
    const { required: _required, ...rest } = node;
    return { ...rest, properties };
  };

  const zone = defs.zone as Json;
  const properties: Json = {};
  for (const [key, child] of Object.entries(zone.properties as Json)) {
    const identity = IDENTITY_KEYS[key];
    const reason = refused.get(key);
    properties[key] =
      identity !== undefined
        ? refusal(identity)
        : reason !== undefined
          ? refusal(zoneOnlyMessage(key, reason))
          : partial(child as Json, key);
  }
  for (const [key, message] of Object.entries(IDENTITY_KEYS)) properties[key] ??= refusal(message);
  const defaultsDef: Json = {
    description:
      "What every zone of this file shares, merged into each zone before it is checked: a zone's own " +
      "values win, mappings merge key by key, lists are replaced whole; null in a zone takes a default " +
      "out. Any section a zone may hold, but a zone's identity and the sections of one zone only.",
    type: "object",
    additionalProperties: false,
    properties,
  };

  const top: Json = {};
  for (const [key, value] of Object.entries(schema.properties as Json)) {
    if (key === "zones") top[DEFAULTS_KEY] = { $ref: `#/$defs/${DEFAULTS_KEY}` };
    top[key] = value;
  }
  top[DEFAULTS_KEY] ??= { $ref: `#/$defs/${DEFAULTS_KEY}` };
  if (DEFAULTS_KEY in defs) throw new Error(`$defs/${DEFAULTS_KEY} exists: the definition of defaults needs the name`);
  return { ...schema, properties: top, $defs: { ...defs, [DEFAULTS_KEY]: defaultsDef, ...copies } };
}

function zoneOnlyMessage(path: string, reason: string): string {
  return `${path} belongs in a zone, not in defaults: ${reason}`;
}
