// The sentences every audit format shares: the totals, the filters, a kind's counts and categories, the
// overall result. Plain text, made printable where it holds API text; each format escapes it again.
import type { InventoryKind } from "../inventory/index.js";
import { printable } from "../safe-text.js";
import type { KindSummary } from "./collector.js";
import type { AuditFilters, AuditTotals, FailCounts, OverallResult } from "./renderer-contract.js";

export const KIND_TITLE: Record<InventoryKind, string> = {
  script: "Scripts",
  connection: "Connections",
  cookie: "Cookies",
};
const KIND_FINDING: Record<InventoryKind, string> = {
  script: "malicious",
  connection: "malicious",
  cookie: "insecure",
};

export function describeTotals(t: AuditTotals): string {
  const inv = t.inventories ? describeInventoryTotals(t) : "";
  const pages = t.pages_checked !== undefined ? describeHeaderTotals(t) : "";
  if (t.findings === 0) {
    return (
      `No findings: no malicious scripts or connections, no insecure ` +
      `cookies${t.inventories ? ", no unauthorized or changed scripts, no stale authorizations" : ""}` +
      `${t.pages_checked !== undefined ? ", no changed or missing headers on the payment pages" : ""}.`
    );
  }
  return (
    `Findings: ${t.malicious_scripts} malicious script${plural(t.malicious_scripts)}, ` +
    `${t.malicious_connections} malicious connection${plural(t.malicious_connections)}, ` +
    `${t.insecure_cookies} insecure cookie${plural(t.insecure_cookies)}` +
    `${t.lookalike_hosts ? `, ${t.lookalike_hosts} look-alike host${plural(t.lookalike_hosts)}` : ""}${inv}${pages}.`
  );
}

function describeHeaderTotals(t: AuditTotals): string {
  const c = t.changed_headers ?? 0;
  const m = t.missing_headers ?? 0;
  const u = t.unreachable_pages ?? 0;
  const i = t.insecure_pages ?? 0;
  const p = t.policies_not_applied ?? 0;
  return (
    `, ${c} changed header${plural(c)}, ${m} missing header${plural(m)}, ${u} unreachable page${plural(u)}` +
    `${i ? `, ${i} insecure page${plural(i)}` : ""}${p ? `, ${p} polic${p === 1 ? "y" : "ies"} not applied` : ""}`
  );
}

function describeInventoryTotals(t: AuditTotals): string {
  const u = t.unauthorized_scripts ?? 0;
  const c = t.changed_scripts ?? 0;
  const st = t.stale_authorizations ?? 0;
  const r = t.unreviewed_authorizations ?? 0;
  return (
    `, ${u} unauthorized script${plural(u)}, ${r} unreviewed (draft) entr${r === 1 ? "y" : "ies"}, ${c} changed ` +
    `script${plural(c)}, ${st} stale authorization${plural(st)}`
  );
}

export function plural(n: number): string {
  return n === 1 ? "" : "s";
}

export function describeFilters(f: AuditFilters): string {
  const parts = [`status ${f.status?.join(",") ?? "active (default)"}`];
  if (f.hosts) parts.push(`host ${f.hosts.join(",")}`);
  if (f.page_url) parts.push(`page URL ${f.page_url.join(",")}`);
  parts.push(
    `malicious: js_integrity_score below ${f.malicious_below}, magecart/malware/cryptomining_score below ` +
      `${f.threat_below}, or reported`,
  );
  return printable(parts.join("; "));
}

export function describeKind(kind: InventoryKind, s: KindSummary): string {
  const unscored = s.unscored ? ` (${s.unscored} not scored yet)` : "";
  const look = s.lookalike ? `, ${s.lookalike} look-alike host${plural(s.lookalike)}` : "";
  const verdicts = s.findings - (s.lookalike ?? 0);
  return `${KIND_TITLE[kind]}: ${s.read} read, ${verdicts} ${KIND_FINDING[kind]}${look}${unscored}`;
}

export function describeCategories(s: KindSummary): string | undefined {
  const list = (counts: Record<string, number> | undefined) =>
    Object.entries(counts ?? {})
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([c, n]) => `${c} ${n}`)
      .join(", ");
  const domain = list(s.malicious_domain_categories);
  const url = list(s.malicious_url_categories);
  if (!domain && !url) return undefined;
  return printable(
    [domain ? `domain categories: ${domain}` : "", url ? `URL categories: ${url}` : ""].filter(Boolean).join("; "),
  );
}

export function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** What each `--fail-on` value counts, as a noun phrase for `n` of them. */
const COUNTED: Record<keyof FailCounts, (n: number) => string> = {
  malicious: (n) => `${n} malicious script${n === 1 ? "" : "s"} or connection${n === 1 ? "" : "s"}`,
  lookalike: (n) => `${n} look-alike host${plural(n)}`,
  insecure: (n) => `${n} insecure cookie${plural(n)}`,
  unauthorized: (n) => `${n} unauthorized script${plural(n)}`,
  unreviewed: (n) => `${n} unreviewed (draft) entr${n === 1 ? "y" : "ies"}`,
  changed: (n) => `${n} changed script${plural(n)}`,
  stale: (n) => `${n} stale authorization${plural(n)}`,
  headers: (n) => `${n} changed or missing header${plural(n)}`,
  unreachable: (n) => `${n} payment page${plural(n)} not checked`,
  policy: (n) => `${n} polic${n === 1 ? "y" : "ies"} not applied`,
  alerting: (n) => `${n} zone${plural(n)} without Page Shield alerting`,
};

/** What made the result fail (or `findings` for --fail-on any), as a list of counts. */
function failedCounts(r: OverallResult): string {
  if (r.failed_on.includes("any")) return `${r.counts.findings} finding${plural(r.counts.findings)}`;
  return r.failed_on
    .filter((k): k is keyof FailCounts => Object.hasOwn(COUNTED, k))
    .map((k) => COUNTED[k](r.counts[k]))
    .join(", ");
}

/** The overall result, first in every report for people: `fail (exit 2) on …` or `pass (exit 0)`, and the counts. */
export function describeResult(r: OverallResult): string {
  const all =
    r.counts.findings === 0
      ? "no findings"
      : `${r.counts.findings} finding${plural(r.counts.findings)} in all (${r.counts.high} high, ` +
        `${r.counts.medium} medium, ${r.counts.low} low)`;
  const failOn = `--fail-on ${r.fail_on.join(",")}`;
  return r.status === "fail"
    ? `Result: FAIL (exit 2) on ${failedCounts(r)} (${failOn}); ${all}.`
    : `Result: PASS (exit 0): nothing that ${failOn} counts; ${all}.`;
}
