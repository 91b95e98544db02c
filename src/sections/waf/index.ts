// `waf`: the OWASP Core Ruleset and the Cloudflare Managed Ruleset, both execute rules of the zone's
// http_request_firewall_managed entry point.
// Spec: docs/configuration.md, `waf`.
import type { Section } from "../types.js";
import { exportWaf } from "./export.js";
import { DEFAULT_EXPRESSION, scoreThreshold } from "./normalize.js";
import type { DesiredWaf, WafFileZone, WafZone } from "./types.js";
import { wafManagedRules } from "./waf-managed.js";

export type * from "./types.js";
// What `waf-migration` builds on: the managed rulesets, the entry point's shape, the OWASP intent.
export {
  CLOUDFLARE_MANAGED_RULESET_ID,
  CLOUDFLARE_MANAGED_RULESET_NAME,
  OWASP_RULESET_ID,
  OWASP_RULESET_NAME,
  readOwaspRuleset,
  type OwaspRuleset,
} from "./managed-ruleset.js";
export { formatThreshold, intentFrom, sameParanoia, type ExecuteParameters } from "./owasp-intent.js";

/** The section's key in a zone of the file (what `waf-migration` names). */
export const WAF_KEY = "waf";

export const waf: Section<WafZone, WafFileZone> = {
  name: "waf",
  path: WAF_KEY,
  kinds: [wafManagedRules],
  owns: (zone) => zone.waf?.owasp !== undefined || zone.waf?.cloudflare_managed !== undefined,
  normalize(file, out) {
    const w = file.waf;
    if (!w) return;
    const desired: DesiredWaf = {};
    if (w.owasp) {
      desired.owasp = {
        enabled: w.owasp.enabled,
        paranoia_level: w.owasp.paranoia_level ?? 1,
        score_threshold: scoreThreshold(w.owasp.score_threshold),
        action: w.owasp.action ?? "block",
        expression: w.owasp.expression ?? DEFAULT_EXPRESSION,
      };
    }
    if (w.cloudflare_managed) {
      desired.cloudflare_managed = {
        enabled: w.cloudflare_managed.enabled,
        expression: w.cloudflare_managed.expression ?? DEFAULT_EXPRESSION,
      };
      if (w.cloudflare_managed.action !== undefined) desired.cloudflare_managed.action = w.cloudflare_managed.action;
    }
    out.waf = desired;
  },
  async export(ctx) {
    const w = await exportWaf(ctx);
    return Object.keys(w).length > 0 ? { waf: w } : undefined;
  },
  summary(zone) {
    const parts: string[] = [];
    const o = zone.waf?.owasp;
    if (o)
      parts.push(
        o.enabled ? `owasp (PL${o.paranoia_level}, threshold ${o.score_threshold}, ${o.action})` : "owasp (off)",
      );
    if (zone.waf?.cloudflare_managed)
      parts.push(`cloudflare_managed (${zone.waf.cloudflare_managed.enabled ? "on" : "off"})`);
    return parts;
  },
  permissions: [
    {
      name: "Zone WAF",
      scope: "zone",
      read: "Read",
      write: "Edit",
      paths: [/^zones\/[^/]+\/rulesets/, /^zones\/[^/]+\/waf_migration/],
    },
    {
      name: "Account Rulesets",
      scope: "account",
      read: "Read",
      write: "Edit",
      paths: [/^accounts\/[^/]+\/rulesets/],
      label: "waf (managed rulesets)",
      readOnly: true,
      needed: (desired) => desired.account_id !== undefined,
    },
  ],
  ids: ["rulesets", "rules"].map((collection) => ({ collection, id: /^([0-9a-f]{32}|phases)$/ })),
  rules: [],
};
