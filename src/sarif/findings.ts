// zoneform's findings (the Page Shield verdicts and the inventory check) as SARIF findings, each at
// its place in the configuration. Pure. Spec: docs/commands/audit.md#sarif.
import type { Finding, InventoryFinding } from "../inventory/index.js";
import type { ConfigPositions } from "./locate.js";
import type { SarifFinding, ZoneName } from "./log.js";
import { levelOf, type RuleKey } from "./rules.js";

const VERDICT_RULE: Record<Finding["kind"], RuleKey> = {
  script: "malicious-script",
  connection: "malicious-connection",
  cookie: "insecure-cookie",
};
const INVENTORY_RULE: Record<InventoryFinding["type"], RuleKey> = {
  lookalike: "lookalike-host",
  unauthorized: "unauthorized-script",
  unreviewed: "unreviewed-script",
  changed: "changed-script",
  stale: "stale-authorization",
};

function withoutUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function verdictMessage(f: Finding): string {
  const where = [f.host ? `on ${f.host}` : "", f.first_page_url ? `first seen on page ${f.first_page_url}` : ""]
    .filter(Boolean)
    .join(", ");
  const what = f.lookalike
    ? `Look-alike host: ${f.kind === "script" ? "script" : "connection to"}`
    : f.kind === "cookie"
      ? "Insecure cookie"
      : f.kind === "script"
        ? "Malicious script"
        : "Malicious connection to";
  return `${what} ${f.subject}${where ? ` (${where})` : ""}: ${f.reasons.join("; ")}.`;
}

export function verdictFinding(zone: ZoneName, f: Finding, at?: ConfigPositions): SarifFinding {
  const rule = f.lookalike ? "lookalike-host" : VERDICT_RULE[f.kind];
  const where = f.kind === "script" ? at?.entryCovering(zone.id, f.subject) : at?.zone(zone.id);
  return {
    rule,
    level: levelOf(f.severity),
    message: verdictMessage(f),
    zone,
    // Page Shield's item id is the item's identity; a malformed item without one falls back to what it is.
    subject: f.id !== "" ? f.id : `${f.subject}\n${f.host}`,
    ...(where ? { where } : {}),
    properties: withoutUndefined({
      zone_id: zone.id,
      kind: f.kind,
      severity: f.severity,
      id: f.id,
      subject: f.subject,
      host: f.host,
      status: f.status,
      verdict_by: f.verdict_by,
      js_integrity_score: f.js_integrity_score,
      magecart_score: f.magecart_score,
      malware_score: f.malware_score,
      cryptomining_score: f.cryptomining_score,
      malicious_domain_categories: f.kind === "cookie" ? undefined : f.malicious_domain_categories,
      malicious_url_categories: f.kind === "cookie" ? undefined : f.malicious_url_categories,
      first_page_url: f.first_page_url,
      last_seen_at: f.last_seen_at,
      lookalike: f.lookalike,
    }),
  };
}

export function inventoryFinding(zone: ZoneName, f: InventoryFinding, at?: ConfigPositions): SarifFinding {
  const rule = INVENTORY_RULE[f.type];
  const unlisted = f.type === "unauthorized" || f.type === "lookalike";
  const where = unlisted ? at?.inventory(zone.id) : at?.entry(zone.id, f.authorized_url ?? f.url);
  // A script by its Page Shield id; an authorization by its entry's url.
  const subject = f.type === "stale" || f.type === "unreviewed" ? (f.authorized_url ?? f.url) : (f.script_id ?? f.url);
  return {
    rule,
    level: levelOf(f.severity),
    message: `${f.message} (PCI DSS v4.0 ${f.requirement}).`,
    zone,
    subject,
    ...(where ? { where } : {}),
    properties: withoutUndefined({
      zone_id: zone.id,
      type: f.type,
      severity: f.severity,
      requirement: `PCI DSS v4.0 ${f.requirement}`,
      url: f.url,
      script_id: f.script_id,
      authorized_url: f.authorized_url,
      pinned_hash: f.pinned_hash,
      seen_hash: f.seen_hash,
      fetched_at: f.fetched_at,
      first_seen_at: f.first_seen_at,
      last_seen_at: f.last_seen_at,
      first_page_url: f.first_page_url,
      looks_like: f.looks_like,
      looks_like_kind: f.looks_like_kind,
      signals: f.signals,
    }),
  };
}
