// Turns the new-WAF configuration the migration API proposes (`GET waf_migration/config`) into the zoneform `waf`
// section that states it, and renders that as a zoneform YAML file.
import { Document, isScalar } from "yaml";
import {
  CLOUDFLARE_MANAGED_RULESET_ID,
  formatThreshold,
  intentFrom,
  OWASP_RULESET_ID,
  sameParanoia,
  type ExecuteParameters,
  type OwaspAction,
  type OwaspRuleset,
} from "../sections/index.js";
import { oldActionFor, oldSensitivitiesFor } from "./sensitivity.js";

/** `GET zones/{z}/waf_migration/config?phase_two=1` → result. */
export interface MigrationConfig {
  name: string;
  rules: Array<Record<string, unknown>>;
}

interface ProposedOwasp {
  enabled: boolean;
  paranoia_level?: number;
  score_threshold?: number;
  action?: OwaspAction;
  expression?: string;
}

interface ProposedWaf {
  owasp: ProposedOwasp;
  cloudflare_managed: { enabled: boolean; action?: OwaspAction; expression?: string };
}

export interface MappedConfig {
  waf: ProposedWaf;
  /** What the proposal does, in words. */
  summary: string[];
  /** What the file cannot state, or what a plan would still change. */
  warnings: string[];
}

/** The last rule of the OWASP ruleset, "949110: Inbound Anomaly Score Exceeded" (API notes). */
const OWASP_LAST_RULE_ID = "6179ae15870a4bb7b2d480d4843b323c";

const OWASP_ACTIONS: readonly string[] = ["block", "managed_challenge", "js_challenge", "log", "challenge"];

export function documentedOwasp(): OwaspRuleset {
  return {
    id: OWASP_RULESET_ID,
    lastRuleId: OWASP_LAST_RULE_ID,
    defaultThreshold: 40,
    defaultAction: "block",
    paranoiaLevels: [1, 2, 3, 4],
  };
}

function paramsOf(rule: Record<string, unknown>): ExecuteParameters | undefined {
  const p = rule.action_parameters;
  return p && typeof p === "object" ? (p as ExecuteParameters) : undefined;
}

function executeRulesFor(rules: MigrationConfig["rules"], rulesetId: string): Array<Record<string, unknown>> {
  return rules.filter((r) => r.action === "execute" && paramsOf(r)?.id === rulesetId);
}

function mapOwasp(config: MigrationConfig, managed: OwaspRuleset, out: MappedConfig): ProposedOwasp {
  const found = executeRulesFor(config.rules, managed.id);
  if (found.length > 1)
    out.warnings.push(`the proposal deploys the OWASP Core Ruleset ${found.length} times; zoneform manages the first`);
  const rule = found[0];
  if (!rule) {
    out.summary.push("OWASP Core Ruleset: not deployed");
    return { enabled: false };
  }
  const intent = intentFrom(rule, managed);
  if (!sameParanoia(rule, intent.paranoia_level)) {
    out.warnings.push(
      `the proposal's paranoia category overrides are not exactly "levels above ${intent.paranoia_level} ` +
        `disabled"; a plan will rewrite them to that`,
    );
  }
  const others = (paramsOf(rule)?.overrides?.rules ?? []).filter((r) => r.id !== managed.lastRuleId).length;
  if (others > 0)
    out.summary.push(
      `OWASP Core Ruleset: ${others} other rule override(s) deployed as proposed; zoneform keeps them and ` +
        `does not manage them`,
    );
  const owasp: ProposedOwasp = {
    enabled: intent.enabled,
    paranoia_level: intent.paranoia_level,
    score_threshold: intent.score_threshold,
    ...expressionOf(rule),
  };
  if (OWASP_ACTIONS.includes(intent.action)) owasp.action = intent.action as OwaspAction;
  else
    out.warnings.push(
      `the proposed OWASP action "${intent.action}" cannot be written in a zoneform file; left out (a plan ` +
        `will set block)`,
    );
  const from = oldSensitivitiesFor(intent.paranoia_level, intent.score_threshold);
  const oldAction = oldActionFor(intent.action);
  out.summary.push(
    `OWASP Core Ruleset: ${intent.enabled ? "enabled" : "deployed but disabled"}, paranoia level ` +
      `${intent.paranoia_level}, ` +
      `score threshold ${formatThreshold(intent.score_threshold)}, action ${intent.action}` +
      (from.length > 0 ? ` (old sensitivity ${from.join(" or ")}` : " (no old sensitivity maps to this pair") +
      (oldAction ? `; old action ${oldAction})` : ")"),
  );
  return owasp;
}

/** The proposed rule's expression for the file, when it is not the default `true`. */
function expressionOf(rule: Record<string, unknown>): { expression?: string } {
  return typeof rule.expression === "string" && rule.expression !== "true" ? { expression: rule.expression } : {};
}

function mapCloudflareManaged(config: MigrationConfig, out: MappedConfig): ProposedWaf["cloudflare_managed"] {
  const found = executeRulesFor(config.rules, CLOUDFLARE_MANAGED_RULESET_ID);
  if (found.length > 1)
    out.warnings.push(
      `the proposal deploys the Cloudflare Managed Ruleset ${found.length} times; zoneform manages the first`,
    );
  const rule = found[0];
  if (!rule) {
    out.summary.push("Cloudflare Managed Ruleset: not deployed");
    return { enabled: false };
  }
  const cfm: ProposedWaf["cloudflare_managed"] = { enabled: rule.enabled !== false, ...expressionOf(rule) };
  const overrides = paramsOf(rule)?.overrides ?? {};
  if (typeof overrides.action === "string") {
    if (OWASP_ACTIONS.includes(overrides.action)) cfm.action = overrides.action as OwaspAction;
    else
      out.warnings.push(
        `the proposed Cloudflare Managed action "${overrides.action}" cannot be written in a zoneform file; left out`,
      );
  }
  const ruleOverrides = (overrides.rules ?? []).length + (overrides.categories ?? []).length;
  out.summary.push(
    `Cloudflare Managed Ruleset: ${cfm.enabled ? "enabled" : "deployed but disabled"}, action ` +
      `${cfm.action ?? "each rule's own"}` +
      (ruleOverrides > 0
        ? `, ${ruleOverrides} rule/category override(s) deployed as proposed (kept, not managed by zoneform)`
        : ""),
  );
  return cfm;
}

/** The zoneform `waf` section that states the proposed configuration. */
export function mapMigrationConfig(config: MigrationConfig, managed: OwaspRuleset | null): MappedConfig {
  const out: MappedConfig = {
    waf: { owasp: { enabled: false }, cloudflare_managed: { enabled: false } },
    summary: [],
    warnings: [],
  };
  const owaspRuleset = managed ?? documentedOwasp();
  out.waf.owasp = mapOwasp(config, owaspRuleset, out);
  out.waf.cloudflare_managed = mapCloudflareManaged(config, out);
  const known = new Set([owaspRuleset.id, CLOUDFLARE_MANAGED_RULESET_ID]);
  const foreign = config.rules.filter((r) => !(r.action === "execute" && known.has(String(paramsOf(r)?.id))));
  if (foreign.length > 0) {
    out.summary.push(
      `${foreign.length} other rule(s) (e.g. skip rules migrated from firewall rules or page rules) are ` +
        `deployed as proposed; zoneform keeps them and does not manage them`,
    );
  }
  return out;
}

export interface MigrationYamlOptions {
  zoneId: string;
  zoneName?: string;
  waf: ProposedWaf;
  /** The `$schema` reference written in the yaml-language-server header; none, no such line. */
  schemaRef?: string | undefined;
  /** Extra header comment lines (where the proposal came from). */
  header?: string[];
}

export function renderMigrationYaml(opts: MigrationYamlOptions): string {
  const zone: Record<string, unknown> = { zone_id: opts.zoneId };
  if (opts.zoneName) zone.name = opts.zoneName;
  zone.waf = opts.waf;
  const doc = new Document({ version: 1, zones: [zone] });
  const schemaLine = opts.schemaRef === undefined ? [] : [` yaml-language-server: $schema=${opts.schemaRef}`];
  doc.commentBefore = [...schemaLine, ...(opts.header ?? []).map((l) => ` ${l}`)].join("\n");
  const threshold = doc.getIn(["zones", 0, "waf", "owasp", "score_threshold"], true);
  const label = opts.waf.owasp.score_threshold !== undefined ? formatThreshold(opts.waf.owasp.score_threshold) : "";
  if (isScalar(threshold) && label.includes("(")) threshold.comment = ` ${label.slice(label.indexOf("(") + 1, -1)}`;
  const paranoia = doc.getIn(["zones", 0, "waf", "owasp", "paranoia_level"], true);
  const { paranoia_level: pl, score_threshold: st } = opts.waf.owasp;
  if (isScalar(paranoia) && pl !== undefined && st !== undefined) {
    const from = oldSensitivitiesFor(pl, st);
    if (from.length > 0) paranoia.comment = ` from old sensitivity ${from.join(" or ")}`;
  }
  return doc.toString({ lineWidth: 0 });
}
