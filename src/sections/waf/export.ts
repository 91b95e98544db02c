// The managed WAF rulesets of the http_request_firewall_managed entry point, turned back into intent.
// Spec: docs/configuration.md, `waf`.
import { AnswerShapeError, ApiError } from "../../errors.js";
import { readEntrypoint } from "../shared/entrypoint.js";
import {
  CLOUDFLARE_MANAGED_RULESET_ID,
  OWASP_RULESET_ID,
  readOwaspRuleset,
  type OwaspRuleset,
} from "./managed-ruleset.js";
import { THRESHOLD_LABELS, intentFrom, sameParanoia, type ExecuteParameters } from "./owasp-intent.js";
import { executeRulesFor, WAF_PHASE } from "./waf-managed.js";
import type { SectionContext } from "../export-context.js";

const ACTIONS = new Set(["block", "managed_challenge", "js_challenge", "log", "challenge"]);

export interface ExportedWaf {
  owasp?: {
    enabled: boolean;
    paranoia_level?: number;
    score_threshold?: number | string;
    action?: string;
    expression?: string;
  };
  cloudflare_managed?: { enabled: boolean; action?: string; expression?: string };
}

/** The rule's expression for the file: left out when it is the default `true`. */
function expressionOf(rule: { expression?: unknown }): { expression?: string } {
  return typeof rule.expression === "string" && rule.expression !== "true" ? { expression: rule.expression } : {};
}

export async function exportWaf(ctx: SectionContext): Promise<ExportedWaf> {
  const entrypoint = await readEntrypoint(ctx.read, ctx.zoneId, WAF_PHASE);
  const where = `zone ${ctx.zoneId}`;
  const out: ExportedWaf = {};

  const owaspRules = executeRulesFor(entrypoint, OWASP_RULESET_ID);
  const owasp = owaspRules[0];
  if (owaspRules.length > 1)
    ctx.notes.warnings.push(
      `${where}: ${owaspRules.length} rules deploy the OWASP Core Ruleset; the file describes the first (${owasp!.id})`,
    );
  let managed: OwaspRuleset | undefined;
  let unreadable = "";
  if (owasp) {
    try {
      managed = await readOwaspRuleset(ctx.read, ctx.zoneId);
    } catch (err) {
      if (!(err instanceof ApiError) && !(err instanceof AnswerShapeError)) throw err;
      unreadable = err.message;
    }
  }
  if (!owasp) {
    out.owasp = { enabled: false };
  } else if (!managed) {
    ctx.notes.warnings.push(
      `${where}: the OWASP Core Ruleset could not be read with its rules (${unreadable}), so its tuning ` +
        `cannot be derived; waf.owasp left out (give --account-id if the zone reads it through an account)`,
    );
  } else {
    const intent = intentFrom(owasp, managed);
    if (!ACTIONS.has(intent.action)) {
      ctx.notes.warnings.push(
        `${where}: the OWASP anomaly action ${JSON.stringify(intent.action)} is not one the file format ` +
          `knows; waf.owasp left out`,
      );
    } else {
      out.owasp = {
        enabled: intent.enabled,
        paranoia_level: intent.paranoia_level,
        score_threshold: THRESHOLD_LABELS[intent.score_threshold] ?? intent.score_threshold,
        action: intent.action,
        ...expressionOf(owasp),
      };
      if (intent.enabled && !sameParanoia(owasp, intent.paranoia_level)) {
        ctx.notes.warnings.push(
          `${where}: the OWASP paranoia overrides were made by hand (not exactly "levels above ` +
            `${intent.paranoia_level} disabled"); plan will rewrite them to paranoia_level ` +
            `${intent.paranoia_level}`,
        );
      }
    }
  }

  const cfmRules = executeRulesFor(entrypoint, CLOUDFLARE_MANAGED_RULESET_ID);
  const cfm = cfmRules[0];
  if (cfmRules.length > 1)
    ctx.notes.warnings.push(
      `${where}: ${cfmRules.length} rules deploy the Cloudflare Managed Ruleset; the file describes the ` +
        `first (${cfm!.id})`,
    );
  if (!cfm) {
    out.cloudflare_managed = { enabled: false };
  } else {
    const action = (cfm.action_parameters as ExecuteParameters | undefined)?.overrides?.action;
    if (typeof action === "string" && !ACTIONS.has(action)) {
      ctx.notes.warnings.push(
        `${where}: the Cloudflare Managed Ruleset's action ${JSON.stringify(action)} is not one the file ` +
          `format knows; waf.cloudflare_managed left out`,
      );
    } else {
      out.cloudflare_managed = {
        enabled: cfm.enabled !== false,
        ...(typeof action === "string" ? { action } : {}),
        ...expressionOf(cfm),
      };
    }
  }
  return out;
}
