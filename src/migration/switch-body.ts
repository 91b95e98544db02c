// The one write of `waf-migration start`, pure.
import equal from "fast-deep-equal";
import {
  writableRule,
  type Entrypoint,
  type LiveRule,
  CLOUDFLARE_MANAGED_RULESET_ID,
  CLOUDFLARE_MANAGED_RULESET_NAME,
  OWASP_RULESET_ID,
  OWASP_RULESET_NAME,
} from "../sections/index.js";
import type { Operation } from "../model/index.js";
import type { MigrationMode } from "./eligibility.js";

export const WAF_PHASE = "http_request_firewall_managed";

export type ProposedRule = Record<string, unknown>;

export interface SwitchPlan {
  operation: Operation;
  /** Proposal rules sent as new rules, in the proposal's order. */
  added: ProposedRule[];
  /** Live rules sent back unchanged (by id), in the entry point's order. */
  kept: LiveRule[];
  lines: string[];
}

const RULESET_NAMES: Record<string, string> = {
  [OWASP_RULESET_ID]: OWASP_RULESET_NAME,
  [CLOUDFLARE_MANAGED_RULESET_ID]: CLOUDFLARE_MANAGED_RULESET_NAME,
};

function executedRuleset(rule: Record<string, unknown>): string | undefined {
  if (rule.action !== "execute") return undefined;
  const id = (rule.action_parameters as { id?: unknown } | undefined)?.id;
  return typeof id === "string" ? id : undefined;
}

const quoted = (v: unknown) => JSON.stringify(typeof v === "string" ? v : String(v ?? ""));

/** One rule in words: action, the ruleset it executes, description, expression and overrides. */
function describeRule(rule: Record<string, unknown>): string {
  const target = executedRuleset(rule);
  const parts = [String(rule.action)];
  if (target) parts.push(`${RULESET_NAMES[target] ?? "managed ruleset"} (${target})`);
  if (typeof rule.description === "string" && rule.description !== "") parts.push(quoted(rule.description));
  parts.push(`when ${quoted(rule.expression)}`);
  if (rule.enabled === false) parts.push("disabled");
  const overrides = (rule.action_parameters as { overrides?: Record<string, unknown> } | undefined)?.overrides;
  if (overrides && typeof overrides === "object") {
    const n = (k: string) => (Array.isArray(overrides[k]) ? (overrides[k] as unknown[]).length : 0);
    const bits = [
      n("categories") > 0 ? `${n("categories")} category override(s)` : "",
      n("rules") > 0 ? `${n("rules")} rule override(s)` : "",
      typeof overrides.action === "string" ? `action ${overrides.action}` : "",
    ].filter((b) => b !== "");
    if (bits.length > 0) parts.push(`with ${bits.join(", ")}`);
  }
  return parts.join(", ");
}

function heldBy(live: readonly LiveRule[], proposed: ProposedRule): LiveRule | undefined {
  const target = executedRuleset(proposed);
  if (target) return live.find((r) => executedRuleset(r) === target);
  return live.find(
    (r) =>
      r.action === proposed.action &&
      r.expression === proposed.expression &&
      equal(r.action_parameters ?? null, proposed.action_parameters ?? null),
  );
}

export function planSwitch(
  zoneId: string,
  mode: MigrationMode,
  proposal: { name?: unknown; rules: ProposedRule[] },
  live: Entrypoint | null,
): SwitchPlan | { error: string } {
  const path = `zones/${zoneId}/rulesets/phases/${WAF_PHASE}/entrypoint`;
  const query = { waf_migration: mode, phase_two: "1" };
  const call = `PUT ${path}?waf_migration=${mode}&phase_two=1`;
  if (!live) {
    const name = typeof proposal.name === "string" && proposal.name !== "" ? proposal.name : "default";
    return {
      operation: { method: "PUT", path, query, body: { name, rules: proposal.rules } },
      added: proposal.rules,
      kept: [],
      lines: [
        `  ${call}`,
        `    creates the ${WAF_PHASE} entry point (the zone has none) with the proposal's ` +
          `${proposal.rules.length} rule(s):`,
        ...proposal.rules.map((r) => `    + adds:  ${describeRule(r)}`),
      ],
    };
  }
  const noId = live.rules.findIndex((r) => typeof r.id !== "string" || r.id === "");
  if (noId >= 0) {
    return {
      error:
        `the ${WAF_PHASE} entry point (${live.id}) answered rule ${noId + 1} ` +
        `(${describeRule(live.rules[noId]!)}) without an id; ` +
        "the migration switch takes the whole rule list and could not keep that rule as it is, so nothing " +
        "was changed. Read the entry point again later, or ask Cloudflare support",
    };
  }
  const added: ProposedRule[] = [];
  const already: Array<{ proposed: ProposedRule; by: LiveRule }> = [];
  for (const p of proposal.rules) {
    const by = heldBy(live.rules, p);
    if (by) already.push({ proposed: p, by });
    else added.push(p);
  }
  const kept = live.rules;
  const rules = [...kept.map((r) => ({ id: r.id, ...writableRule(r) })), ...added];
  return {
    operation: { method: "PUT", path, query, body: { name: live.name !== "" ? live.name : proposal.name, rules } },
    added,
    kept,
    lines: [
      `  ${call}`,
      `    the switch takes the entry point's (${live.id}) whole rule list: the ${kept.length} rule(s) it ` +
        `holds are sent back unchanged, by id, ` +
        `and ${
          added.length === 0 ? "no rule is added" : `${added.length} rule(s) of the proposal are added after them`
        }:`,
      ...kept.map((r) => `    = keeps: ${r.id} ${describeRule(r)}`),
      ...added.map((r) => `    + adds:  ${describeRule(r)}`),
      ...already.map(
        ({ proposed, by }) =>
          `    not added (the entry point already has it as ${by.id}, kept as it is): ${describeRule(proposed)}`,
      ),
    ],
  };
}

export function sameEntrypoint(shown: Entrypoint | null, now: Entrypoint | null): boolean {
  return equal(shown, now);
}
