// Pure translation between the OWASP intent a file states and the overrides of the execute rule deploying the
// OWASP Core Ruleset; zoneform owns only the paranoia categories' `enabled` and the last rule's threshold and action.
// Spec: docs/configuration.md, `waf`.
import { MAX_PARANOIA, PARANOIA_TAG, type OwaspRuleset } from "./managed-ruleset.js";

export interface OwaspIntent {
  enabled: boolean;
  paranoia_level: number;
  score_threshold: number;
  action: string;
}

export interface CategoryOverride {
  category: string;
  enabled?: boolean;
  action?: string;
  [key: string]: unknown;
}

export interface RuleOverride {
  id: string;
  enabled?: boolean;
  action?: string;
  score_threshold?: number;
  [key: string]: unknown;
}

interface ExecuteOverrides {
  action?: string;
  enabled?: boolean;
  categories?: CategoryOverride[];
  rules?: RuleOverride[];
  [key: string]: unknown;
}

export interface ExecuteParameters {
  id: string;
  version?: string;
  overrides?: ExecuteOverrides;
  [key: string]: unknown;
}

/** The dashboard's names for the three usual thresholds. */
export const THRESHOLD_LABELS: Readonly<Record<number, string>> = { 60: "low", 40: "medium", 25: "high" };

export function formatThreshold(n: number): string {
  const label = THRESHOLD_LABELS[n];
  return label ? `${n} (${label})` : String(n);
}

function paranoiaLevelOf(category: unknown): number | undefined {
  const m = typeof category === "string" ? PARANOIA_TAG.exec(category) : null;
  return m ? Number(m[1]) : undefined;
}

/** The paranoia levels that paranoia level `level` disables: every higher one, up to 4. */
function levelsAbove(level: number): number[] {
  const out: number[] = [];
  for (let l = level + 1; l <= MAX_PARANOIA; l++) out.push(l);
  return out;
}

/** Category overrides that select paranoia level `level`: every higher level disabled. */
export function paranoiaOverrides(level: number): CategoryOverride[] {
  return levelsAbove(level).map((l) => ({ category: `paranoia-level-${l}`, enabled: false }));
}

/** The overrides zoneform owns for an intent: paranoia categories and the last rule's threshold and action. */
export function overridesFor(
  intent: OwaspIntent,
  managed: OwaspRuleset,
): { categories: CategoryOverride[]; rules: RuleOverride[] } {
  return {
    categories: paranoiaOverrides(intent.paranoia_level),
    rules: [{ id: managed.lastRuleId, score_threshold: intent.score_threshold, action: intent.action }],
  };
}

function paramsOf(rule: { action_parameters?: unknown }): ExecuteParameters | undefined {
  const p = rule.action_parameters;
  return p && typeof p === "object" ? (p as ExecuteParameters) : undefined;
}

export function intentFrom(
  rule: { enabled?: unknown; action_parameters?: unknown },
  managed: OwaspRuleset,
): OwaspIntent {
  const overrides = paramsOf(rule)?.overrides ?? {};
  const disabled = [...disabledLevels(Array.isArray(overrides.categories) ? overrides.categories : [])];
  const last = (Array.isArray(overrides.rules) ? overrides.rules : []).find((r) => r.id === managed.lastRuleId);
  return {
    enabled: rule.enabled !== false,
    paranoia_level: disabled.length > 0 ? Math.min(...disabled) - 1 : MAX_PARANOIA,
    score_threshold: typeof last?.score_threshold === "number" ? last.score_threshold : managed.defaultThreshold,
    // Precedence is rule override > ruleset-wide override > the rule's own action.
    action: last?.action ?? overrides.action ?? managed.defaultAction,
  };
}

function disabledLevels(categories: readonly CategoryOverride[]): Set<number> {
  const out = new Set<number>();
  for (const c of categories) {
    const l = paranoiaLevelOf(c.category);
    if (l !== undefined && c.enabled === false) out.add(l);
  }
  return out;
}

/** Whether the live paranoia category overrides disable exactly the levels above `level`. */
export function sameParanoia(rule: { action_parameters?: unknown }, level: number): boolean {
  const live = disabledLevels(paramsOf(rule)?.overrides?.categories ?? []);
  const want = levelsAbove(level);
  return live.size === want.length && want.every((l) => live.has(l));
}

function tunedCategories(live: readonly CategoryOverride[], level: number): CategoryOverride[] {
  const above = new Set(levelsAbove(level));
  const out: CategoryOverride[] = [];
  const present = new Set<number>();
  for (const c of live) {
    const l = paranoiaLevelOf(c.category);
    if (l === undefined) {
      out.push(c);
      continue;
    }
    present.add(l);
    if (above.has(l)) {
      out.push({ ...c, enabled: false });
      continue;
    }
    const { enabled: _enabled, ...rest } = c;
    if (Object.keys(rest).length > 1) out.push(rest);
  }
  for (const l of above) if (!present.has(l)) out.push({ category: `paranoia-level-${l}`, enabled: false });
  return out;
}

export function tunedParameters(live: unknown, intent: OwaspIntent, managed: OwaspRuleset): ExecuteParameters {
  const params: ExecuteParameters =
    live && typeof live === "object" ? structuredClone(live as ExecuteParameters) : { id: managed.id };
  params.id = managed.id;
  const overrides: ExecuteOverrides = { ...(params.overrides ?? {}) };
  const categories = tunedCategories(
    Array.isArray(overrides.categories) ? overrides.categories : [],
    intent.paranoia_level,
  );
  if (categories.length > 0) overrides.categories = categories;
  else delete overrides.categories;
  const rules = [...(Array.isArray(overrides.rules) ? overrides.rules : [])];
  const at = rules.findIndex((r) => r.id === managed.lastRuleId);
  const mine = overridesFor(intent, managed).rules[0]!;
  if (at >= 0) rules[at] = { ...rules[at]!, score_threshold: mine.score_threshold, action: mine.action };
  else rules.push(mine);
  overrides.rules = rules;
  params.overrides = overrides;
  return params;
}

export function intentFieldChanges(before: OwaspIntent, after: OwaspIntent): Array<keyof OwaspIntent> {
  return (["paranoia_level", "score_threshold", "action", "enabled"] as const).filter((k) => before[k] !== after[k]);
}

/** "paranoia 1 → 2, threshold 60 → 40 (medium), action block → managed_challenge": only what changes. */
export function describeUpdate(before: OwaspIntent, after: OwaspIntent, paranoiaRewritten = false): string {
  const parts: string[] = [];
  if (before.enabled !== after.enabled) parts.push(after.enabled ? "enable OWASP" : "disable OWASP (tuning kept)");
  if (before.paranoia_level !== after.paranoia_level)
    parts.push(`paranoia ${before.paranoia_level} → ${after.paranoia_level}`);
  else if (paranoiaRewritten)
    parts.push(`paranoia ${after.paranoia_level} (category overrides rewritten to disable only levels above it)`);
  if (before.score_threshold !== after.score_threshold) {
    parts.push(`threshold ${before.score_threshold} → ${formatThreshold(after.score_threshold)}`);
  }
  if (before.action !== after.action) parts.push(`action ${before.action} → ${after.action}`);
  return parts.join(", ");
}

export function describeCreate(intent: OwaspIntent): string {
  return (
    `deploy OWASP: paranoia ${intent.paranoia_level}, threshold ` +
    `${formatThreshold(intent.score_threshold)}, action ${intent.action}`
  );
}
