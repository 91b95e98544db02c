// The one canonical JSON of zoneform: what fingerprints, digests and "is it the same?" comparisons hash or compare,
// so that equal values always read alike whatever the order of their keys. Pure.

/**
 * JSON.stringify's replacer that gives an object whose keys are not in order a copy with its keys sorted (an
 * object without prototype, so that a key named `__proto__` stays a key). Native serialization with this hook
 * costs half of building the text in JavaScript, and an object already in order is not copied.
 */
function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! <= keys[i]!;
  if (sorted) return value;
  keys.sort();
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of keys) out[key] = record[key];
  return out;
}

/** JSON with object keys sorted, so equal values always hash the same (undefined members left out). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, sortKeys) ?? "null";
}
