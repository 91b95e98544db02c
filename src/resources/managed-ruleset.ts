// Finding and reading the managed rulesets a zone deploys: the OWASP Core Ruleset (whose last rule
// carries the anomaly score threshold and action, and whose `paranoia-level-N` tags pick the paranoia
// level) and the Cloudflare Managed Ruleset. Read through the account when the file names one, else
// through the zone (a zone's ruleset list shows the managed rulesets it may deploy). Lists are read
// once per account or zone, and a managed ruleset once per run, whatever the number of zones.
import type { ReadContext } from "./types.js";
import { zonePath } from "./fields.js";

export const OWASP_RULESET_ID = "4814384a9e5d4991b9815dcfc25d2f1f";
export const OWASP_RULESET_NAME = "Cloudflare OWASP Core Ruleset";
export const CLOUDFLARE_MANAGED_RULESET_ID = "efb7b8c949ac4650a09736fc376e9aee";
export const CLOUDFLARE_MANAGED_RULESET_NAME = "Cloudflare Managed Ruleset";

export const PARANOIA_TAG = /^paranoia-level-(\d+)$/;

export interface RulesetSummary {
  id: string;
  name: string;
  kind?: string;
  phase?: string;
}

export interface ManagedRulesetRefs {
  owasp?: RulesetSummary;
  cloudflareManaged?: RulesetSummary;
}

/** What tuning the OWASP ruleset needs, derived from one read of it (nothing hard-coded). */
export interface OwaspRuleset {
  id: string;
  /** The last rule ("949110: Inbound Anomaly Score Exceeded"): threshold and action are overridden on it. */
  lastRuleId: string;
  defaultThreshold: number;
  defaultAction: string;
  /** Paranoia levels that have rules, ascending (normally 1..4). */
  paranoiaLevels: number[];
}

function pickRuleset(list: RulesetSummary[], id: string, name: string): RulesetSummary | undefined {
  const managed = list.filter((r) => r.kind === undefined || r.kind === "managed");
  return managed.find((r) => r.id === id) ?? managed.find((r) => r.name === name);
}

/** The OWASP and Cloudflare Managed rulesets visible to the zone (or the file's account). */
export async function findManagedRulesets(ctx: ReadContext, zoneId: string): Promise<ManagedRulesetRefs> {
  const account = ctx.desired.account_id;
  const path = account ? `accounts/${account}/rulesets` : zonePath(zoneId, "rulesets");
  const list = await ctx.memo(`ruleset-list:${path}`, async () => {
    const out: RulesetSummary[] = [];
    for await (const r of ctx.client.paginateCursor<RulesetSummary>(path)) out.push(r);
    return out;
  });
  const refs: ManagedRulesetRefs = {};
  const owasp = pickRuleset(list, OWASP_RULESET_ID, OWASP_RULESET_NAME);
  const cfm = pickRuleset(list, CLOUDFLARE_MANAGED_RULESET_ID, CLOUDFLARE_MANAGED_RULESET_NAME);
  if (owasp) refs.owasp = owasp;
  if (cfm) refs.cloudflareManaged = cfm;
  return refs;
}

/** Reads the OWASP ruleset with its rules, once per run whichever zone asks first. */
export function readOwaspRuleset(ctx: ReadContext, zoneId: string, ref: RulesetSummary): Promise<OwaspRuleset | null> {
  const account = ctx.desired.account_id;
  return ctx.memo(`managed-ruleset:${ref.id}`, async () => {
    const path = account ? `accounts/${account}/rulesets/${ref.id}` : zonePath(zoneId, "rulesets", ref.id);
    const raw = await ctx.client.request<Record<string, unknown>>("GET", path);
    return deriveOwasp(raw);
  });
}

/** Pure: the tuning facts of an OWASP ruleset read (with rules); null when the read holds no rules. */
export function deriveOwasp(raw: Record<string, unknown>): OwaspRuleset | null {
  const rules = Array.isArray(raw.rules) ? (raw.rules as Array<Record<string, unknown>>) : [];
  const last = rules[rules.length - 1];
  if (!last) return null;
  const levels = new Set<number>();
  for (const r of rules) {
    for (const tag of Array.isArray(r.categories) ? (r.categories as unknown[]) : []) {
      const m = typeof tag === "string" ? PARANOIA_TAG.exec(tag) : null;
      if (m) levels.add(Number(m[1]));
    }
  }
  return {
    id: String(raw.id),
    lastRuleId: String(last.id),
    defaultThreshold: typeof last.score_threshold === "number" ? last.score_threshold : 40,
    defaultAction: typeof last.action === "string" ? last.action : "block",
    paranoiaLevels: [...levels].sort((a, b) => a - b),
  };
}
