// Small wording helpers the sections' summary lines share.
// Spec: docs/architecture.md.

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
