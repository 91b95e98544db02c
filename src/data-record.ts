// Records built key by key from data zoneform reads (a file, an API answer, a plan file): a key such
// as `__proto__` is stored as an own property like any other, never taken as the record's prototype,
// and a key that is not the record's own (`constructor`, `toString`) reads as absent.

/** Sets `record[key]` as an own, enumerable property, whatever the key (`__proto__` included). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `record[key]` when the record has it as its own property, else undefined. */
export function getOwn<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Adds one to the count under `key` (a category, a certificate authority read from an answer). */
export function countOwn(counts: Record<string, number>, key: string): void {
  setOwn(counts, key, (getOwn(counts, key) ?? 0) + 1);
}
