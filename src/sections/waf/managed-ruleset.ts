// Reading the managed rulesets a zone deploys.
// Spec: docs/configuration.md, `waf`.
import { AnswerShapeError, ApiError } from "../../errors.js";
import { zonePath } from "../shared/fields.js";
import type { ReadContext } from "../types.js";
import { clipJson } from "../../redact.js";

export const OWASP_RULESET_ID = "4814384a9e5d4991b9815dcfc25d2f1f";
export const OWASP_RULESET_NAME = "Cloudflare OWASP Core Ruleset";
export const CLOUDFLARE_MANAGED_RULESET_ID = "efb7b8c949ac4650a09736fc376e9aee";
export const CLOUDFLARE_MANAGED_RULESET_NAME = "Cloudflare Managed Ruleset";

export const PARANOIA_TAG = /^paranoia-level-(\d+)$/;
/** The paranoia levels the OWASP Core Ruleset has (the file's paranoia_level is 1..4). */
export const MAX_PARANOIA = 4;

/** What tuning the OWASP ruleset needs, derived from one read of it (nothing hard-coded). */
export interface OwaspRuleset {
  id: string;
  /** The last rule ("949110: Inbound Anomaly Score Exceeded"): threshold and action are overridden on it. */
  lastRuleId: string;
  defaultThreshold: number;
  defaultAction: string;
  /** Paranoia levels whose `paranoia-level-N` category the answer shows on some rule, ascending. */
  paranoiaLevels: number[];
}

export function managedRulesetPath(accountId: string | undefined, zoneId: string, rulesetId: string): string {
  return accountId ? `accounts/${accountId}/rulesets/${rulesetId}` : zonePath(zoneId, "rulesets", rulesetId);
}

export function readManagedRuleset(
  ctx: ReadContext,
  zoneId: string,
  rulesetId: string,
  label: string,
): Promise<unknown> {
  const account = ctx.desired.account_id;
  const path = managedRulesetPath(account, zoneId, rulesetId);
  return ctx.memo(`managed-ruleset:${path}`, async () => {
    try {
      return await ctx.client.request<unknown>("GET", path);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status < 400 || err.status >= 500 || err.status === 429) throw err;
      const how = account
        ? `account ${account} cannot read it: check that the account id is right and that the token has ` +
          `"Account Rulesets: Read"`
        : `managed rulesets are documented under the account: set account_id in the file (or ` +
          `CLOUDFLARE_ACCOUNT_ID) so that zoneform reads accounts/<account_id>/rulesets/${rulesetId}`;
      throw new ApiError(
        `reading the ${label} (${rulesetId}) was refused (HTTP ${err.status}: ${err.message}); ${how}`,
        err.info,
      );
    }
  });
}

export async function readOwaspRuleset(ctx: ReadContext, zoneId: string): Promise<OwaspRuleset> {
  return deriveOwasp(await readManagedRuleset(ctx, zoneId, OWASP_RULESET_ID, OWASP_RULESET_NAME));
}

/** Pure: the tuning facts of an OWASP ruleset read (with rules). */
export function deriveOwasp(raw: unknown): OwaspRuleset {
  const r =
    raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  if (!r || typeof r.id !== "string") {
    throw new AnswerShapeError(
      `the API answered the ${OWASP_RULESET_NAME} as ${clipJson(raw, 60)}, expected a ruleset with an id and rules`,
    );
  }
  const rules = Array.isArray(r.rules) ? (r.rules as unknown[]) : [];
  const last = rules[rules.length - 1] as Record<string, unknown> | undefined;
  if (!last || typeof last !== "object" || typeof last.id !== "string" || last.id === "") {
    throw new AnswerShapeError(
      `the API answered the ${OWASP_RULESET_NAME} ${r.id} ` +
        `${rules.length === 0 ? "without rules" : "with a last rule that has no id"}, expected its rules with ` +
        `the last one (949110) carrying an id; zoneform cannot set the threshold and action without it`,
    );
  }
  const levels = new Set<number>();
  for (const rule of rules) {
    const categories = rule && typeof rule === "object" ? (rule as Record<string, unknown>).categories : undefined;
    for (const tag of Array.isArray(categories) ? categories : []) {
      const m = typeof tag === "string" ? PARANOIA_TAG.exec(tag) : null;
      if (m) levels.add(Number(m[1]));
    }
  }
  return {
    id: r.id,
    lastRuleId: last.id,
    defaultThreshold: typeof last.score_threshold === "number" ? last.score_threshold : 40,
    defaultAction: typeof last.action === "string" ? last.action : "block",
    paranoiaLevels: [...levels].sort((a, b) => a - b),
  };
}

export function missingParanoiaLevels(level: number, managed: OwaspRuleset): number[] {
  const shown = new Set(managed.paranoiaLevels);
  const out: number[] = [];
  for (let l = level + 1; l <= MAX_PARANOIA; l++) if (!shown.has(l)) out.push(l);
  return out;
}
