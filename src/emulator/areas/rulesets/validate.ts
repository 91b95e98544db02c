// Validation of ruleset write bodies, errors pointed by JSON pointer.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import { OWASP_OVERRIDE_ACTIONS, OWASP_RULESET_ID } from "./owasp-rules.js";
import { ApiFault, type ApiErrorBody } from "../../types.js";
import type { Ruleset } from "./state.js";

export const RULESET_CODE = { invalid: 20021, kindExceeded: 20217, previousWaf: 20219, notFound: 10003 } as const;

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
/** score_threshold bounds. */
const SCORE_THRESHOLD_MIN = 1;
const SCORE_THRESHOLD_MAX = 1000;

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
  /** Rule fields the 2026 SDK sends for rate limiting and leaked-credential rules. */
  ratelimit?: Record<string, unknown>;
  exposed_credential_check?: Record<string, unknown>;
  /** Rule fields the emulator does not know, kept as given and read back. */
  extra?: Record<string, unknown>;
}

/** The rule fields the emulator knows (written, read-only, or a placement directive). */
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

export interface RuleContext {
  phase: string;
  /** Managed rulesets an `execute` rule may name. */
  managed: readonly Ruleset[];
}

/** Validates a `rules` array; throws one 400 listing every problem. */
export function validateRules(raw: unknown, ctx: RuleContext, pointer = "/rules"): RuleInput[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid([problem(pointer, raw, "rules", "it must be an array of rules")]);
  const errors: ApiErrorBody[] = [];
  const rules = raw.map((r, i) => checkRule(r, ctx, `${pointer}/${i}`, errors));
  errors.push(...checkRuleSet(rules, pointer));
  if (errors.length > 0) throw invalid(errors);
  return rules;
}

/** Validates one rule body (POST/PATCH of a single rule). */
export function validateRule(raw: unknown, ctx: RuleContext, pointer = ""): RuleInput {
  const errors: ApiErrorBody[] = [];
  const rule = checkRule(raw, ctx, pointer, errors);
  if (errors.length > 0) throw invalid(errors);
  return rule;
}

/** Checks that hold across a ruleset's rules. */
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

export function invalid(errors: ApiErrorBody[]): ApiFault {
  return new ApiFault(400, errors);
}

/** The rulesets API's message shape: "'<value>' is not a valid value for <field> because <reason>". */
export function problem(pointer: string, value: unknown, field: string, reason: string): ApiErrorBody {
  const shown = typeof value === "string" ? value : JSON.stringify(value);
  return {
    code: RULESET_CODE.invalid,
    message: `'${shown}' is not a valid value for ${field} because ${reason}`,
    source: { pointer: pointer || "/" },
  };
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

function checkExecute(
  params: Record<string, unknown> | undefined,
  ctx: RuleContext,
  ptr: string,
  errors: ApiErrorBody[],
): void {
  const target = ctx.managed.find((r) => r.id === params?.id);
  if (!params || typeof params.id !== "string") {
    errors.push(
      problem(`${ptr}/id`, params?.id ?? "", "id", "an execute rule must name the managed ruleset to deploy"),
    );
    return;
  }
  if (!target) {
    errors.push(problem(`${ptr}/id`, params.id, "id", "no managed ruleset with this id is available to the zone"));
    return;
  }
  if (target.phase !== ctx.phase) {
    errors.push(
      problem(`${ptr}/id`, params.id, "id", `the managed ruleset belongs to phase ${target.phase}, not ${ctx.phase}`),
    );
  }
  if (params.version !== undefined && (typeof params.version !== "string" || !/^(latest|\d+)$/.test(params.version))) {
    errors.push(problem(`${ptr}/version`, params.version, "version", 'it must be "latest" or a version number'));
  }
  if (params.overrides !== undefined) checkOverrides(params.overrides, target, `${ptr}/overrides`, errors);
}

function checkOverrides(raw: unknown, target: Ruleset, ptr: string, errors: ApiErrorBody[]): void {
  if (!isObject(raw)) {
    errors.push(problem(ptr, raw, "overrides", "it must be an object"));
    return;
  }
  // Overrides can only pick actions a managed rule may take.
  const actions: readonly string[] = OWASP_OVERRIDE_ACTIONS;
  const checkAction = (value: unknown, p: string): void => {
    if (value !== undefined && (typeof value !== "string" || !actions.includes(value))) {
      const why = target.id === OWASP_RULESET_ID ? "OWASP rules" : "managed rules";
      errors.push(problem(p, value, "action", `${why} can only be overridden with ${actions.join(", ")}`));
    }
  };
  const checkEnabled = (value: unknown, p: string): void => {
    if (value !== undefined && typeof value !== "boolean")
      errors.push(problem(p, value, "enabled", "it must be a boolean"));
  };
  /** An override of the ruleset or of a category. */
  const checkBroadOverride = (o: Record<string, unknown>, p: string): void => {
    checkAction(o.action, `${p}/action`);
    checkEnabled(o.enabled, `${p}/enabled`);
    if (o.score_threshold !== undefined) {
      errors.push(
        problem(`${p}/score_threshold`, o.score_threshold, "score_threshold", "it is only allowed on a rule override"),
      );
    }
  };
  checkBroadOverride(raw, ptr);
  const tags = new Set(target.rules.flatMap((r) => r.categories ?? []));
  eachItem(raw.categories, "categories", `${ptr}/categories`, errors, (item, p) => {
    if (typeof item.category !== "string" || !tags.has(item.category)) {
      errors.push(
        problem(
          `${p}/category`,
          item.category ?? "",
          "category",
          `the ruleset ${target.name} has no rules tagged with it`,
        ),
      );
    }
    checkBroadOverride(item, p);
  });
  eachItem(raw.rules, "rules", `${ptr}/rules`, errors, (item, p) => {
    const rule = target.rules.find((r) => r.id === item.id);
    if (!rule) {
      errors.push(problem(`${p}/id`, item.id ?? "", "id", `the ruleset ${target.name} has no rule with this id`));
    }
    checkAction(item.action, `${p}/action`);
    checkEnabled(item.enabled, `${p}/enabled`);
    const st = item.score_threshold;
    if (st === undefined) return;
    if (!Number.isInteger(st) || (st as number) < SCORE_THRESHOLD_MIN || (st as number) > SCORE_THRESHOLD_MAX) {
      errors.push(
        problem(
          `${p}/score_threshold`,
          st,
          "score_threshold",
          `it must be an integer from ${SCORE_THRESHOLD_MIN} to ${SCORE_THRESHOLD_MAX}`,
        ),
      );
    } else if (rule && rule.score_threshold === undefined) {
      errors.push(
        problem(
          `${p}/score_threshold`,
          st,
          "score_threshold",
          `rule ${rule.description ?? rule.id} is not a threshold rule`,
        ),
      );
    }
  });
}

/** The lists of a log_custom_field rule. */
const LOG_FIELD_KINDS = [
  "request_fields",
  "transformed_request_fields",
  "response_fields",
  "raw_response_fields",
  "cookie_fields",
] as const;

function checkLogCustomField(
  params: Record<string, unknown> | undefined,
  ctx: RuleContext,
  ptr: string,
  errors: ApiErrorBody[],
): void {
  if (ctx.phase !== "http_log_custom_fields") {
    errors.push(
      problem(
        ptr.replace(/action_parameters$/, "action"),
        "log_custom_field",
        "action",
        `it is only allowed in phase http_log_custom_fields, not ${ctx.phase}`,
      ),
    );
    return;
  }
  const kinds = LOG_FIELD_KINDS;
  if (!params || !kinds.some((k) => params[k] !== undefined)) {
    errors.push(problem(ptr, params ?? {}, "action_parameters", `at least one of ${kinds.join(", ")} is required`));
    return;
  }
  for (const kind of kinds) {
    eachItem(params[kind], kind, `${ptr}/${kind}`, errors, (item, p) => {
      if (typeof item.name !== "string" || item.name === "") {
        errors.push(problem(`${p}/name`, item.name ?? "", "name", "a field name is required"));
      } else if (kind !== "cookie_fields" && item.name !== item.name.toLowerCase()) {
        // Header names are matched lower case; cookie names keep their capitalisation.
        errors.push(problem(`${p}/name`, item.name, "name", "header names must be lower case"));
      }
      // preserve_duplicates belongs to response headers, transformed or raw.
      if (item.preserve_duplicates === undefined) return;
      if (kind !== "response_fields" && kind !== "raw_response_fields") {
        errors.push(
          problem(
            `${p}/preserve_duplicates`,
            item.preserve_duplicates,
            "preserve_duplicates",
            "only response_fields and raw_response_fields items take it",
          ),
        );
      } else if (typeof item.preserve_duplicates !== "boolean") {
        errors.push(
          problem(`${p}/preserve_duplicates`, item.preserve_duplicates, "preserve_duplicates", "it must be a boolean"),
        );
      }
    });
  }
  for (const key of Object.keys(params)) {
    if (!(kinds as readonly string[]).includes(key))
      errors.push(
        problem(`${ptr}/${key}`, key, "action_parameters", `log_custom_field accepts only ${kinds.join(", ")}`),
      );
  }
}

function countLogFields(params: Record<string, unknown> | undefined): number {
  if (!params) return 0;
  return LOG_FIELD_KINDS.reduce((n, k) => n + (Array.isArray(params[k]) ? (params[k] as unknown[]).length : 0), 0);
}

function eachItem(
  value: unknown,
  field: string,
  ptr: string,
  errors: ApiErrorBody[],
  check: (item: Record<string, unknown>, pointer: string) => void,
): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.length === 0) {
    errors.push(problem(ptr, value, field, "it must be a non-empty array"));
    return;
  }
  value.forEach((item, i) => {
    if (isObject(item)) check(item, `${ptr}/${i}`);
    else errors.push(problem(`${ptr}/${i}`, item, field, "each item must be an object"));
  });
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

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
