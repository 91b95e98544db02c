// Records built key by key from data zoneform reads.

/** Sets `record[key]` as an own, enumerable property, whatever the key (`__proto__` included). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `record[key]` when the record has it as its own property, else undefined. */
export function getOwn<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

export function countOwn(counts: Record<string, number>, key: string): void {
  setOwn(counts, key, (getOwn(counts, key) ?? 0) + 1);
}
