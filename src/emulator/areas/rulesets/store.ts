// In-memory operations on zone rulesets.
import equal from "fast-deep-equal";
import { randomId } from "../../ids.js";
import { invalid, problem, RULESET_CODE } from "./problems.js";
import type { RuleInput } from "./validate.js";
import { ApiFault, type ZoneState } from "../../types.js";
import type { Rule, Ruleset } from "./state.js";

export type RulePosition = { before: string } | { after: string } | { index: number };

function newId(): string {
  return randomId();
}

export function findZoneRuleset(zone: ZoneState, id: string): Ruleset | undefined {
  return zone.rulesets.find((r) => r.id === id);
}

/**
 * The rulesets a zone's list shows: the zone's own (with, after a recorded list was loaded, the managed
 * rulesets it listed, in its order), then the account's managed rulesets not already shown.
 */
export function zoneRulesetsListed(zone: ZoneState, accountRulesets: readonly Ruleset[]): Ruleset[] {
  const own = new Set(zone.rulesets.map((r) => r.id));
  return [...zone.rulesets, ...accountRulesets.filter((r) => !own.has(r.id))];
}

export function findEntrypoint(zone: ZoneState, phase: string): Ruleset | undefined {
  return zone.rulesets.find((r) => r.kind === "zone" && r.phase === phase);
}

export function notFound(message: string): ApiFault {
  return new ApiFault(404, [{ code: RULESET_CODE.notFound, message }]);
}

/** A ruleset as list endpoints show it: everything but the rules. */
export function summarizeRuleset(r: Ruleset): Omit<Ruleset, "rules"> {
  const { rules: _rules, ...rest } = r;
  return rest;
}

export function createRuleset(
  zone: ZoneState,
  input: { name: string; description?: string; kind: Ruleset["kind"]; phase: string },
  rules: readonly RuleInput[],
  now: string,
): Ruleset {
  const ruleset: Ruleset = {
    id: newId(),
    name: input.name,
    description: input.description ?? "",
    kind: input.kind,
    phase: input.phase,
    version: "1",
    last_updated: now,
    rules: rules.map((r) => materializeRule(r, undefined, now)),
  };
  zone.rulesets.push(ruleset);
  return ruleset;
}

export function replaceRules(ruleset: Ruleset, inputs: readonly RuleInput[], now: string): void {
  const errors = inputs.flatMap((r, i) =>
    r.id !== undefined && !ruleset.rules.some((x) => x.id === r.id)
      ? [problem(`/rules/${i}/id`, r.id, "id", "the ruleset has no rule with this id (leave id out to add a rule)")]
      : [],
  );
  if (errors.length > 0) throw invalid(errors);
  ruleset.rules = inputs.map((input) =>
    materializeRule(
      input,
      ruleset.rules.find((x) => x.id === input.id),
      now,
    ),
  );
  touchRuleset(ruleset, now);
}

export function insertRule(ruleset: Ruleset, input: RuleInput, position: RulePosition | undefined, now: string): Rule {
  const rule = materializeRule({ ...input, id: undefined }, undefined, now);
  const at = resolvePosition(ruleset.rules, position);
  ruleset.rules.splice(at, 0, rule);
  touchRuleset(ruleset, now);
  return rule;
}

/** PATCH of one rule: `input` replaces its content (when given), `position` moves it (when given). */
export function updateRule(
  ruleset: Ruleset,
  ruleId: string,
  input: RuleInput | undefined,
  position: RulePosition | undefined,
  now: string,
): void {
  const index = ruleset.rules.findIndex((r) => r.id === ruleId);
  const current = ruleset.rules[index];
  if (!current) throw notFound(`could not find rule ${ruleId} in ruleset ${ruleset.id}`);
  // The ref is a rule's identity for clients: a PATCH body without one keeps the current ref.
  const next = input ? materializeRule({ ref: current.ref, ...input, id: ruleId }, current, now) : current;
  if (position === undefined) {
    ruleset.rules[index] = next;
  } else {
    const rest = ruleset.rules.filter((r) => r.id !== ruleId);
    if ("before" in position && position.before === ruleId)
      throw positionError("before", ruleId, "a rule cannot be placed relative to itself");
    if ("after" in position && position.after === ruleId)
      throw positionError("after", ruleId, "a rule cannot be placed relative to itself");
    rest.splice(resolvePosition(rest, position), 0, next);
    ruleset.rules = rest;
  }
  touchRuleset(ruleset, now);
}

export function deleteRule(ruleset: Ruleset, ruleId: string, now: string): void {
  if (!ruleset.rules.some((r) => r.id === ruleId))
    throw notFound(`could not find rule ${ruleId} in ruleset ${ruleset.id}`);
  ruleset.rules = ruleset.rules.filter((r) => r.id !== ruleId);
  touchRuleset(ruleset, now);
}

export function readPosition(raw: unknown): RulePosition | undefined {
  if (raw === undefined) return undefined;
  const keys = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? Object.keys(raw) : [];
  const obj = raw as Record<string, unknown>;
  if (keys.length !== 1) {
    throw invalid([problem("/position", raw, "position", "it must be exactly one of {before}, {after} or {index}")]);
  }
  if (keys[0] === "index") {
    if (!Number.isInteger(obj.index) || (obj.index as number) < 1)
      throw positionError("index", obj.index, "it must be an integer of at least 1 (1 is the first rule)");
    return { index: obj.index as number };
  }
  const key = keys[0] as "before" | "after";
  const value = obj[key];
  if ((key !== "before" && key !== "after") || typeof value !== "string" || !/^(?:[0-9a-f]{32})?$/.test(value)) {
    throw positionError(key ?? "position", value, 'it must be a rule id or ""');
  }
  return key === "before" ? { before: value } : { after: value };
}

function resolvePosition(rules: readonly Rule[], position: RulePosition | undefined): number {
  if (position === undefined) return rules.length;
  if ("index" in position) return Math.min(position.index - 1, rules.length);
  if ("before" in position) {
    // An empty `before` means the top, an empty `after` the bottom (schema description).
    if (position.before === "") return 0;
    const i = rules.findIndex((r) => r.id === position.before);
    if (i < 0) throw positionError("before", position.before, "the ruleset has no rule with this id");
    return i;
  }
  if (position.after === "") return rules.length;
  const i = rules.findIndex((r) => r.id === position.after);
  if (i < 0) throw positionError("after", position.after, "the ruleset has no rule with this id");
  return i + 1;
}

function positionError(key: string, value: unknown, reason: string): ApiFault {
  return invalid([problem(`/position/${key}`, value, `position.${key}`, reason)]);
}

export function touchRuleset(ruleset: Ruleset, now: string): void {
  ruleset.version = String(Number(ruleset.version) + 1);
  ruleset.last_updated = now;
}

/**
 * An execute rule's action_parameters as stored: without a `version`, the deployment follows the managed
 * ruleset's latest version and reads back `version: "latest"`.
 */
function storedActionParameters(input: RuleInput): Record<string, unknown> | undefined {
  const ap = input.action_parameters;
  if (input.action !== "execute" || ap === undefined || ap.version !== undefined) return ap;
  const { id, ...rest } = ap;
  return { id, version: "latest", ...rest };
}

function materializeRule(input: RuleInput, previous: Rule | undefined, now: string): Rule {
  const id = previous?.id ?? newId();
  const actionParameters = storedActionParameters(input);
  const rule: Rule = {
    id,
    version: "1",
    action: input.action,
    ...(actionParameters !== undefined ? { action_parameters: actionParameters } : {}),
    expression: input.expression,
    description: input.description ?? "",
    last_updated: now,
    ref: input.ref ?? previous?.ref ?? id,
    enabled: input.enabled ?? true,
    ...(input.logging !== undefined ? { logging: input.logging } : {}),
    ...(input.ratelimit !== undefined ? { ratelimit: input.ratelimit } : {}),
    ...(input.exposed_credential_check !== undefined
      ? { exposed_credential_check: input.exposed_credential_check }
      : {}),
    ...input.extra,
  };
  if (!previous) return rule;
  const same = equal(content(rule), content(previous));
  return same ? previous : { ...rule, version: String(Number(previous.version) + 1) };
}

function content(r: Rule): Record<string, unknown> {
  const { id: _i, version: _v, last_updated: _l, ...rest } = r;
  return rest;
}
