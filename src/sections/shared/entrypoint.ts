// Phase entry point rulesets shared by the rule-based kinds.
// Spec: docs/architecture.md.
import { ApiError } from "../../errors.js";
import type { Operation } from "../../model/index.js";
import { zonePath } from "./fields.js";
import type { ReadContext } from "../types.js";

/** A rule as the rulesets API returns it; fields zoneform does not know are carried through. */
export interface LiveRule {
  id: string;
  version?: string;
  action: string;
  expression: string;
  description?: string;
  enabled?: boolean;
  ref?: string;
  action_parameters?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Entrypoint {
  id: string;
  name: string;
  phase: string;
  version: string;
  rules: LiveRule[];
}

/** Rule fields the API fills in or computes: never sent back in a write. */
const READ_ONLY = new Set(["id", "version", "last_updated", "categories"]);

/** The name Cloudflare's own examples give a zone's phase entry point. */
const ENTRYPOINT_NAME = "Zone-level phase entry point";

/** True for "this zone has no entry point ruleset in the phase yet". */
function isMissingEntrypoint(err: unknown): boolean {
  return err instanceof ApiError && err.isNotFound();
}

/** What an entry point read must look like before zoneform writes rules into it. */
function asRuleset(
  raw: unknown,
  phase: string,
): { id: string; name?: unknown; phase?: unknown; version?: unknown; rules: LiveRule[] } {
  const fail = (why: string) => new Error(`the ${phase} entry point read is not a ruleset: ${why}`);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw fail("not an object");
  const r = raw as Record<string, unknown>;
  if (typeof r.id !== "string" || r.id === "") throw fail("no ruleset id");
  const rules = r.rules ?? [];
  if (!Array.isArray(rules)) throw fail("rules is not a list");
  for (const [i, rule] of rules.entries()) {
    // A rule without an id is kept as it is.
    const ok =
      rule !== null &&
      typeof rule === "object" &&
      typeof (rule as LiveRule).action === "string" &&
      ((rule as LiveRule).id === undefined || typeof (rule as LiveRule).id === "string");
    if (!ok) throw fail(`rule ${i} has no action, or an id that is not a string`);
  }
  return { ...r, id: r.id, rules: rules as LiveRule[] };
}

/** The zone's entry point ruleset of `phase`, or null when none exists; read once per run. */
export function readEntrypoint(ctx: ReadContext, zoneId: string, phase: string): Promise<Entrypoint | null> {
  return ctx.memo(`entrypoint:${zoneId}:${phase}`, async () => {
    try {
      const raw = await ctx.client.request<unknown>("GET", zonePath(zoneId, "rulesets", "phases", phase, "entrypoint"));
      const ruleset = asRuleset(raw, phase);
      return {
        id: ruleset.id,
        name: String(ruleset.name ?? ""),
        phase: String(ruleset.phase ?? phase),
        version: String(ruleset.version ?? ""),
        rules: ruleset.rules,
      };
    } catch (err) {
      if (isMissingEntrypoint(err)) return null;
      throw err;
    }
  });
}

/** A write to a rule needs its id. */
export function ruleIdError(rule: LiveRule, what: string): string | undefined {
  return typeof rule.id === "string" && rule.id !== ""
    ? undefined
    : `the API answered the ${what} rule without an id, expected one to write it; nothing was changed`;
}

/** Fingerprint material for rules zoneform does not own. */
export function foreignRulesFingerprint(ep: Entrypoint | null, owned: ReadonlySet<string>): unknown {
  if (!ep) return null;
  return {
    id: ep.id,
    rules: ep.rules.filter((r) => !owned.has(r.id)).map((r) => ({ id: r.id, version: r.version ?? null })),
  };
}

export function writableRule(rule: LiveRule): Record<string, unknown> {
  return Object.fromEntries(Object.entries(rule).filter(([k, v]) => !READ_ONLY.has(k) && v !== undefined));
}

/** POST `zones/{z}/rulesets` creating the phase entry point with its first rules (one call, never two). */
export function createEntrypointOp(
  zoneId: string,
  phase: string,
  description: string,
  rules: Record<string, unknown>[],
): Operation {
  return {
    method: "POST",
    path: zonePath(zoneId, "rulesets"),
    body: { name: ENTRYPOINT_NAME, kind: "zone", description, phase, rules },
    finds: { path: zonePath(zoneId, "rulesets"), match: { kind: "zone", phase } },
  };
}

/** Adds one rule at the end of the entry point, after every rule already there. */
export function addRuleOp(
  zoneId: string,
  rulesetId: string,
  rule: Record<string, unknown> & { ref: string },
  phase: string,
): Operation {
  return {
    method: "POST",
    path: zonePath(zoneId, "rulesets", rulesetId, "rules"),
    body: rule,
    finds: {
      path: zonePath(zoneId, "rulesets", "phases", phase, "entrypoint"),
      list: "rules",
      match: { ref: rule.ref },
    },
  };
}

/** A PATCH body replaces the whole rule, so it is built from the live rule. */
export function patchRuleOp(
  zoneId: string,
  rulesetId: string,
  live: LiveRule,
  set: Record<string, unknown>,
): Operation {
  const body = { ...writableRule(live), ...set };
  return { method: "PATCH", path: zonePath(zoneId, "rulesets", rulesetId, "rules", live.id), body };
}

export function deleteRuleOp(zoneId: string, rulesetId: string, ruleId: string): Operation {
  return { method: "DELETE", path: zonePath(zoneId, "rulesets", rulesetId, "rules", ruleId) };
}
