// Validation of ruleset write bodies, errors pointed by JSON pointer.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import { checkExecute, checkLogCustomField, countLogFields, type RuleContext } from "./action-params.js";
import { invalid, problem, RULESET_CODE } from "./problems.js";
import { isObject } from "../../validate.js";
import type { ApiErrorBody } from "../../types.js";

/** Actions of the 2024 schema's rule discriminator. */
const RULE_ACTIONS = [
  "block",
  "challenge",
  "compress_response",
  "ddos_dynamic",
  "execute",
  "force_connection_close",
  "js_challenge",
  "log",
  "log_custom_field",
  "managed_challenge",
  "redirect",
  "rewrite",
  "route",
  "score",
  "serve_error",
  "set_cache_settings",
  "set_config",
  "skip",
] as const;

/** Phases of the 2024 schema plus the two the 2026 SDK added. */
export const RULESET_PHASES = [
  "ddos_l4",
  "ddos_l7",
  "http_config_settings",
  "http_custom_errors",
  "http_log_custom_fields",
  "http_ratelimit",
  "http_request_cache_settings",
  "http_request_dynamic_redirect",
  "http_request_firewall_custom",
  "http_request_firewall_managed",
  "http_request_late_transform",
  "http_request_origin",
  "http_request_redirect",
  "http_request_sanitize",
  "http_request_sbfm",
  "http_request_select_configuration",
  "http_request_transform",
  "http_response_compression",
  "http_response_firewall_managed",
  "http_response_headers_transform",
  "magic_transit",
  "magic_transit_ids_managed",
  "magic_transit_managed",
  "http_response_cache_settings",
  "magic_transit_ratelimit",
] as const;

/** Custom log fields per zone, all types together (spec "Limits"). */
const MAX_CUSTOM_LOG_FIELDS = 40;
/** A rule as the client may write it (read-only fields stripped). */
export interface RuleInput {
  id?: string;
  action: string;
  expression: string;
  description?: string;
  enabled?: boolean;
  ref?: string;
  logging?: { enabled: boolean };
  action_parameters?: Record<string, unknown>;
  /** Rule fields the 2026 SDK sends for rate limiting and leaked-credential rules: kept as given. */
  ratelimit?: Record<string, unknown>;
  exposed_credential_check?: Record<string, unknown>;
  /** Rule fields the emulator does not know, kept as given and read back. */
  extra?: Record<string, unknown>;
}

/** The rule fields the emulator knows (written, read-only, or a placement directive); any other is `extra`. */
const KNOWN_RULE_FIELDS = new Set([
  "id",
  "action",
  "expression",
  "description",
  "enabled",
  "ref",
  "logging",
  "score_threshold",
  "action_parameters",
  "ratelimit",
  "exposed_credential_check",
  "version",
  "last_updated",
  "position",
  "categories",
]);

export function validateRules(raw: unknown, ctx: RuleContext, pointer = "/rules"): RuleInput[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid([problem(pointer, raw, "rules", "it must be an array of rules")]);
  const errors: ApiErrorBody[] = [];
  const rules = raw.map((r, i) => checkRule(r, ctx, `${pointer}/${i}`, errors));
  errors.push(...checkRuleSet(rules, pointer));
  if (errors.length > 0) throw invalid(errors);
  return rules;
}

export function validateRule(raw: unknown, ctx: RuleContext, pointer = ""): RuleInput {
  const errors: ApiErrorBody[] = [];
  const rule = checkRule(raw, ctx, pointer, errors);
  if (errors.length > 0) throw invalid(errors);
  return rule;
}

export function checkRuleSet(rules: readonly RuleInput[], pointer = "/rules"): ApiErrorBody[] {
  const errors: ApiErrorBody[] = [];
  const seen = new Set<string>();
  rules.forEach((r, i) => {
    if (r.ref === undefined) return;
    if (seen.has(r.ref))
      errors.push(problem(`${pointer}/${i}/ref`, r.ref, "ref", "another rule of the ruleset has the same ref"));
    seen.add(r.ref);
  });
  const fields = rules.reduce(
    (n, r) => n + (r.action === "log_custom_field" ? countLogFields(r.action_parameters) : 0),
    0,
  );
  if (fields > MAX_CUSTOM_LOG_FIELDS) {
    errors.push({
      code: RULESET_CODE.invalid,
      message:
        `too many custom log fields: ${fields} configured, ` + `at most ${MAX_CUSTOM_LOG_FIELDS} are allowed per zone`,
      source: { pointer },
    });
  }
  return errors;
}

function checkRule(raw: unknown, ctx: RuleContext, ptr: string, errors: ApiErrorBody[]): RuleInput {
  if (!isObject(raw)) {
    errors.push(problem(ptr, raw, "rule", "a rule must be an object"));
    return { action: "", expression: "" };
  }
  const before = errors.length;
  const rule: RuleInput = { action: String(raw.action ?? ""), expression: String(raw.expression ?? "") };
  if (typeof raw.action !== "string" || !(RULE_ACTIONS as readonly string[]).includes(raw.action)) {
    errors.push(problem(`${ptr}/action`, raw.action ?? "", "action", `it must be one of ${RULE_ACTIONS.join(", ")}`));
  }
  if (typeof raw.expression !== "string" || raw.expression.trim() === "") {
    errors.push(
      problem(
        `${ptr}/expression`,
        raw.expression ?? "",
        "expression",
        'an expression is required (use "true" to match every request)',
      ),
    );
  }
  // An empty id (as in the WAF migration proposal) means "new rule".
  if (raw.id !== undefined && raw.id !== "") {
    if (typeof raw.id === "string" && /^[0-9a-f]{32}$/.test(raw.id)) rule.id = raw.id;
    else errors.push(problem(`${ptr}/id`, raw.id, "id", "rule ids are 32 lower-case hex characters"));
  }
  optionalString(raw, "description", ptr, errors, (v) => (rule.description = v));
  if (raw.ref !== undefined && raw.ref !== "") optionalString(raw, "ref", ptr, errors, (v) => (rule.ref = v));
  if (raw.enabled !== undefined) {
    if (typeof raw.enabled === "boolean") rule.enabled = raw.enabled;
    else errors.push(problem(`${ptr}/enabled`, raw.enabled, "enabled", "it must be a boolean"));
  }
  if (raw.logging !== undefined) {
    if (isObject(raw.logging) && typeof raw.logging.enabled === "boolean")
      rule.logging = { enabled: raw.logging.enabled };
    else errors.push(problem(`${ptr}/logging`, raw.logging, "logging", 'it must be {"enabled": boolean}'));
  }
  if (raw.score_threshold !== undefined) {
    errors.push(
      problem(
        `${ptr}/score_threshold`,
        raw.score_threshold,
        "score_threshold",
        "it can only be set in a rule override of an execute rule (action_parameters.overrides.rules)",
      ),
    );
  }
  if (raw.action_parameters !== undefined) {
    if (isObject(raw.action_parameters)) rule.action_parameters = raw.action_parameters;
    else
      errors.push(
        problem(`${ptr}/action_parameters`, raw.action_parameters, "action_parameters", "it must be an object"),
      );
  }
  for (const key of ["ratelimit", "exposed_credential_check"] as const) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    if (isObject(value)) rule[key] = value;
    else errors.push(problem(`${ptr}/${key}`, value, key, "it must be an object"));
  }
  const extra = Object.entries(raw).filter(([k, v]) => !KNOWN_RULE_FIELDS.has(k) && v !== undefined);
  if (extra.length > 0) rule.extra = Object.fromEntries(extra);
  if (ctx.phase === "http_log_custom_fields" && rule.action !== "log_custom_field" && errors.length === before) {
    errors.push(
      problem(
        `${ptr}/action`,
        rule.action,
        "action",
        "only log_custom_field rules are allowed in phase http_log_custom_fields",
      ),
    );
  }
  if (rule.action === "execute") checkExecute(rule.action_parameters, ctx, `${ptr}/action_parameters`, errors);
  if (rule.action === "log_custom_field")
    checkLogCustomField(rule.action_parameters, ctx, `${ptr}/action_parameters`, errors);
  return rule;
}

function optionalString(
  raw: Record<string, unknown>,
  key: string,
  ptr: string,
  errors: ApiErrorBody[],
  set: (v: string) => void,
): void {
  const value = raw[key];
  if (value === undefined) return;
  if (typeof value === "string") set(value);
  else errors.push(problem(`${ptr}/${key}`, value, key, "it must be a string"));
}
