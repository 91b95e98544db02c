// The rules of zoneform's SARIF output, one per kind of finding. Ids and levels are public (code
// scanning tracks alerts by rule id): change them only with a CHANGELOG entry.
// Spec: docs/commands/audit.md#sarif.
import { SCRIPT_INVENTORY_HEADERS_PATH, SCRIPT_INVENTORY_PATH } from "../sections/index.js";

export type SarifLevel = "error" | "warning" | "note";

export type RuleKey =
  | "malicious-script"
  | "malicious-connection"
  | "insecure-cookie"
  | "unauthorized-script"
  | "unreviewed-script"
  | "changed-script"
  | "stale-authorization"
  | "lookalike-host"
  | "changed-header"
  | "missing-header"
  | "page-unreachable"
  | "insecure-page"
  | "policy-not-applied"
  | "no-alerting"
  | "alerting-unread";

export interface SarifRule {
  id: string;
  name: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  help: { text: string };
  helpUri: string;
  defaultConfiguration: { level: SarifLevel };
  properties: { tags: string[]; precision: "high" | "medium"; "security-severity": string };
}

export const INFORMATION_URI = "https://github.com/zoneform/zoneform";
const HELP_URI = `${INFORMATION_URI}/blob/main/docs/commands/audit.md#sarif`;

interface RuleText {
  name: string;
  short: string;
  full: string;
  help: string;
  level: SarifLevel;
  /** GitHub's security severity (0.1–10): 9+ critical, 7+ high, 4+ medium, else low. */
  severity: string;
  tags: string[];
}

const TEXT: Record<RuleKey, RuleText> = {
  "malicious-script": {
    name: "MaliciousScript",
    short: "Malicious script on the zone's pages",
    full:
      "Page Shield saw a script that Cloudflare's verdict calls malicious: its js_integrity_score, or " +
      "its magecart, malware or cryptomining score, is below the threshold, or its domain or URL is " +
      "reported malicious.",
    help:
      "Remove the script from the pages (and do not authorize it in the script inventory); find out how " +
      "it got there. The message names the signals and the thresholds used.",
    level: "error",
    severity: "9.0",
    tags: ["security", "page-shield", "supply-chain"],
  },
  "malicious-connection": {
    name: "MaliciousConnection",
    short: "Connection to a malicious destination",
    full:
      "A script on the zone's pages connects to a domain or URL reported malicious (Page Shield's " +
      "connection monitor).",
    help: "Find the script that makes the connection and remove it; a skimmer often sends card data this way.",
    level: "error",
    severity: "9.0",
    tags: ["security", "page-shield", "exfiltration"],
  },
  "insecure-cookie": {
    name: "InsecureCookie",
    short: "Cookie without Secure, HttpOnly or SameSite protection",
    full:
      "A cookie set on the zone's pages lacks the Secure attribute (medium: it can travel in clear " +
      "text), or has Secure but lacks HttpOnly or is SameSite=None (low).",
    help: "Set the cookie with Secure, HttpOnly (unless a script must read it) and SameSite=Lax or Strict.",
    level: "warning",
    severity: "5.0",
    tags: ["security", "page-shield", "cookies"],
  },
  "unauthorized-script": {
    name: "UnauthorizedScript",
    short: "Script on a payment page that no inventory entry authorizes",
    full:
      `A script was seen on a page in scope of the zone's script inventory (${SCRIPT_INVENTORY_PATH}) ` +
      `within the window, and no authorized entry covers its URL (PCI DSS v4.0 6.4.3).`,
    help:
      "Either authorize it (an entry with a written justification; `zoneform inventory --merge` drafts " +
      "one) or remove it from the payment pages.",
    level: "error",
    severity: "7.5",
    tags: ["security", "page-shield", "pci-dss", "pci-dss-6.4.3"],
  },
  "changed-script": {
    name: "ChangedScript",
    short: "Authorized script seen with another hash than its pin",
    full:
      "A script matched by an inventory entry with a `hash` pin was seen with another hash: its content " +
      "changed since it was reviewed (PCI DSS v4.0 11.6.1).",
    help:
      "Review the new version; if it is expected, pin its hash in the entry, else remove the script and " +
      "find out how it changed.",
    level: "error",
    severity: "7.5",
    tags: ["security", "page-shield", "pci-dss", "pci-dss-11.6.1"],
  },
  "unreviewed-script": {
    name: "UnreviewedScript",
    short: "Script authorized only by a draft inventory entry",
    full:
      "An entry of the script inventory is still a draft (its justification the TODO zoneform inventory " +
      "writes, or no owner): it authorizes nothing, and a script it covers counts as unreviewed " +
      "(PCI DSS v4.0 6.4.3).",
    help:
      "Write why the script is needed (justification) and who owns it (owner) once it has been reviewed; " +
      "if it should not run on a payment page, remove the entry and the script.",
    level: "error",
    severity: "7.5",
    tags: ["security", "page-shield", "pci-dss", "pci-dss-6.4.3"],
  },
  "stale-authorization": {
    name: "StaleAuthorization",
    short: "Inventory entry not used on the pages in scope",
    full:
      "No script an authorized entry covers was seen on the pages in scope for the stale window " +
      "(--stale-days): the inventory authorizes more than runs (PCI DSS v4.0 6.4.3).",
    help: "Remove the entry if the script is gone, or check the page patterns in scope.",
    level: "note",
    severity: "2.0",
    tags: ["security", "page-shield", "pci-dss", "pci-dss-6.4.3"],
  },
  "lookalike-host": {
    name: "LookalikeHost",
    short: "Script or connection from a host that looks like a trusted one",
    full:
      "Page Shield saw a script or connection whose URL imitates a host the zone trusts (an authorized " +
      "one, a page's own host, or a well-known payment or CDN host): user info before the host, " +
      "invisible characters, an IDN homograph (punycode, mixed scripts), the trusted name carried in a " +
      "longer one, or a name one or two edits away (PCI DSS v4.0 6.4.3).",
    help:
      "Do not authorize it: a reader takes it for the trusted host. Remove it from the pages and find out " +
      "how it got there; the message says what it imitates and why.",
    level: "error",
    severity: "8.5",
    tags: ["security", "page-shield", "supply-chain", "pci-dss", "pci-dss-6.4.3"],
  },
  "changed-header": {
    name: "ChangedHeader",
    short: "Payment page sends a pinned security header with another value",
    full:
      `A payment page of ${SCRIPT_INVENTORY_HEADERS_PATH} sent a pinned header with another value than ` +
      "the pinned one (compared exactly): a security-impacting HTTP header changed as the browser receives " +
      "it (PCI DSS v4.0.1 11.6.1).",
    help:
      "Find out who changed the header and why; if the change is authorized, pin the new value (zoneform " +
      "inventory --headers URL --merge FILE shows it), else restore the header.",
    level: "error",
    severity: "7.5",
    tags: ["security", "headers", "pci-dss", "pci-dss-11.6.1"],
  },
  "missing-header": {
    name: "MissingHeader",
    short: "Payment page no longer sends a pinned security header",
    full:
      `A payment page of ${SCRIPT_INVENTORY_HEADERS_PATH} did not send a header that is pinned: a ` +
      "security-impacting HTTP header was removed as the browser receives it (PCI DSS v4.0.1 11.6.1).",
    help: "Restore the header at the origin or the edge, or remove its pin if it was retired on purpose.",
    level: "error",
    severity: "7.5",
    tags: ["security", "headers", "pci-dss", "pci-dss-11.6.1"],
  },
  "page-unreachable": {
    name: "PageUnreachable",
    short: "Payment page whose headers could not be checked",
    full:
      `A payment page of ${SCRIPT_INVENTORY_HEADERS_PATH} could not be fetched within the bounds (no ` +
      "answer in time, headers too large, not valid HTTP, a redirect to another origin, a status other " +
      "than 2xx): its headers were not checked (PCI DSS v4.0.1 11.6.1).",
    help: "Check the URL and the page; the message says what happened. Until it answers, its headers are unchecked.",
    level: "error",
    severity: "7.0",
    tags: ["security", "headers", "pci-dss", "pci-dss-11.6.1"],
  },
  "insecure-page": {
    name: "InsecurePage",
    short: "Payment page URL on plain http",
    full:
      `A payment page of ${SCRIPT_INVENTORY_HEADERS_PATH} is an http:// URL: it is not fetched (a payment ` +
      "page is served over https) and its headers are unchecked (PCI DSS v4.0.1 11.6.1).",
    help: "Serve the page over https and write its https:// URL.",
    level: "error",
    severity: "7.0",
    tags: ["security", "headers", "pci-dss", "pci-dss-11.6.1"],
  },
  "policy-not-applied": {
    name: "PolicyNotApplied",
    short: "A Page Shield policy's CSP is not in what the payment page sends",
    full:
      "An enabled allow (or log) policy of the zone's Page Shield policies, whose expression selects the " +
      "page or cannot be told not to from its URL, adds a CSP that the page's Content-Security-Policy " +
      "(-Report-Only) header does not hold (PCI DSS v4.0.1 11.6.1).",
    help:
      "Check that the page is served through Cloudflare with the policy applied, and the policy's " +
      "expression; the message says whether the expression was seen to select the page.",
    level: "warning",
    severity: "5.0",
    tags: ["security", "headers", "page-shield", "pci-dss", "pci-dss-11.6.1"],
  },
  "no-alerting": {
    name: "NoAlerting",
    short: "No Page Shield alert notifies anyone of the zone's changes",
    full:
      "No enabled Cloudflare Notifications policy of a Page Shield alert type (scriptmonitor_*) with an " +
      "e-mail, webhook or other destination covers the zone (no zone filter, or one naming it): what Page " +
      "Shield detects alerts no one (PCI DSS v4.0.1 11.6.1).",
    help:
      "Declare the alerts under notifications: of the account's entry of accounts: (docs/configuration.md) " +
      "and apply, or enable the policy and give it someone to notify.",
    level: "warning",
    severity: "5.0",
    tags: ["security", "page-shield", "alerting", "pci-dss", "pci-dss-11.6.1"],
  },
  "alerting-unread": {
    name: "AlertingUnread",
    short: "The account's notification policies could not be read",
    full:
      "The audit could not read the Cloudflare Notifications policies of the zone's account, so it cannot " +
      "show which alerts cover the zone (PCI DSS v4.0.1 11.6.1).",
    help: "Give the account's token Notifications Read (docs/commands/whoami.md).",
    level: "note",
    severity: "2.0",
    tags: ["security", "page-shield", "alerting", "pci-dss", "pci-dss-11.6.1"],
  },
};

export const RULE_KEYS: readonly RuleKey[] = [
  "malicious-script",
  "malicious-connection",
  "insecure-cookie",
  "unauthorized-script",
  "changed-script",
  "stale-authorization",
  // New rules go last: a result's ruleIndex of an older log stays right.
  "lookalike-host",
  "changed-header",
  "missing-header",
  "page-unreachable",
  "insecure-page",
  "policy-not-applied",
  "no-alerting",
  "alerting-unread",
];

export function ruleId(key: RuleKey): string {
  return `zoneform/${key}`;
}

export function sarifRules(): SarifRule[] {
  return RULE_KEYS.map((key) => {
    const t = TEXT[key];
    return {
      id: ruleId(key),
      name: t.name,
      shortDescription: { text: t.short },
      fullDescription: { text: t.full },
      help: { text: `${t.full} ${t.help}` },
      helpUri: HELP_URI,
      defaultConfiguration: { level: t.level },
      properties: { tags: t.tags, precision: "high", "security-severity": t.severity },
    };
  });
}

export function levelOf(severity: "high" | "medium" | "low"): SarifLevel {
  return severity === "high" ? "error" : severity === "medium" ? "warning" : "note";
}
