// Checks of a rule's action_parameters: execute (with overrides) and log_custom_field.
import { OWASP_OVERRIDE_ACTIONS, OWASP_RULESET_ID } from "./owasp-rules.js";
import { problem } from "./problems.js";
import { isObject } from "../../validate.js";
import type { ApiErrorBody } from "../../types.js";
import type { Ruleset } from "./state.js";

const SCORE_THRESHOLD_MIN = 1;
const SCORE_THRESHOLD_MAX = 1000;

export interface RuleContext {
  phase: string;
  /** Managed rulesets an `execute` rule may name. */
  managed: readonly Ruleset[];
}

export function checkExecute(
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
  // Overrides can only pick actions a managed rule may take; the OWASP list is the documented one.
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
  /** An override of the ruleset or of a category: action and enabled, and no score threshold. */
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

/**
 * The lists of a log_custom_field rule; the transformed/raw ones since 2025-04-18 (changelog "Custom fields raw
 * and transformed values support").
 */
const LOG_FIELD_KINDS = [
  "request_fields",
  "transformed_request_fields",
  "response_fields",
  "raw_response_fields",
  "cookie_fields",
] as const;

export function checkLogCustomField(
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

export function countLogFields(params: Record<string, unknown> | undefined): number {
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
