// The file's WAF values as the desired state holds them.
// Spec: docs/configuration.md, `waf`.

/** An execute rule's expression when the file gives none: every request. */
export const DEFAULT_EXPRESSION = "true";
export const SCORE_THRESHOLDS = { low: 60, medium: 40, high: 25 } as const;

export function scoreThreshold(value: number | keyof typeof SCORE_THRESHOLDS | undefined): number {
  if (value === undefined) return SCORE_THRESHOLDS.medium;
  return typeof value === "number" ? value : SCORE_THRESHOLDS[value];
}
