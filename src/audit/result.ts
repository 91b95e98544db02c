// The audit's overall result: what `--fail-on` counts, and pass or fail (exit 2 on fail). Pure.
// Spec: docs/commands/audit.md (`--fail-on`).
import type { InventoryCheck, InventoryKind } from "../inventory/index.js";
import type { AlertingCheck } from "./alerting.js";
import { INVENTORY_KINDS, type KindSummary } from "./collector.js";
import type { HeaderCheck } from "./headers.js";
import type { AuditTotals, FailCounts, OverallResult } from "./renderer-contract.js";

export interface ZoneCounts {
  zone_id: string;
  summary: Record<InventoryKind, KindSummary>;
  inventory?: InventoryCheck;
  headers?: HeaderCheck;
  alerting?: AlertingCheck;
}

export type FailOn =
  | "malicious"
  | "lookalike"
  | "insecure"
  | "unauthorized"
  | "unreviewed"
  | "changed"
  | "stale"
  | "headers"
  | "unreachable"
  | "policy"
  | "alerting"
  | "any"
  | "none";
const FAIL_ON: readonly FailOn[] = [
  "malicious",
  "lookalike",
  "insecure",
  "unauthorized",
  "unreviewed",
  "changed",
  "stale",
  "headers",
  "unreachable",
  "policy",
  "alerting",
  "any",
  "none",
];
/** The default: what a cron job alerts on (`alerting` is not in it: the evidence shows it). */
export const DEFAULT_FAIL_ON: readonly FailOn[] = [
  "malicious",
  "lookalike",
  "unauthorized",
  "unreviewed",
  "changed",
  "headers",
  "unreachable",
];

export function shouldFail(totals: AuditTotals, failOn: FailOn | readonly FailOn[]): boolean {
  return failedOn(totals, failOn).length > 0;
}

function failedOn(totals: AuditTotals, failOn: FailOn | readonly FailOn[]): FailOn[] {
  const on = new Set(Array.isArray(failOn) ? failOn : [failOn as FailOn]);
  if (on.has("any")) return totals.findings > 0 ? ["any"] : [];
  const counts = failCounts(totals);
  return (Object.keys(counts) as Array<keyof FailCounts>).filter((k) => on.has(k) && counts[k] > 0);
}

export function overallResult(totals: AuditTotals, failOn: readonly FailOn[]): OverallResult {
  const failed = failedOn(totals, failOn);
  return {
    status: failed.length > 0 ? "fail" : "pass",
    exit_code: failed.length > 0 ? 2 : 0,
    fail_on: [...failOn],
    failed_on: failed,
    counts: {
      findings: totals.findings,
      ...failCounts(totals),
      high: totals.high,
      medium: totals.medium,
      low: totals.low,
    },
  };
}

function failCounts(totals: AuditTotals): FailCounts {
  return {
    malicious: totals.malicious_scripts + totals.malicious_connections,
    lookalike: totals.lookalike_hosts,
    insecure: totals.insecure_cookies,
    unauthorized: totals.unauthorized_scripts ?? 0,
    unreviewed: totals.unreviewed_authorizations ?? 0,
    changed: totals.changed_scripts ?? 0,
    stale: totals.stale_authorizations ?? 0,
    headers: (totals.changed_headers ?? 0) + (totals.missing_headers ?? 0),
    unreachable: (totals.unreachable_pages ?? 0) + (totals.insecure_pages ?? 0),
    policy: totals.policies_not_applied ?? 0,
    alerting: (totals.no_alerting ?? 0) + (totals.alerting_unread ?? 0),
  };
}

export function parseFailOn(value: string): FailOn[] {
  const list = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const bad = list.filter((v) => !FAIL_ON.includes(v as FailOn));
  if (list.length === 0 || bad.length > 0) {
    throw new Error(`--fail-on ${value}: expected one of ${FAIL_ON.join(", ")}, or a comma list of them`);
  }
  if (list.length > 1 && (list.includes("none") || list.includes("any")))
    throw new Error(`--fail-on ${value}: any and none stand alone`);
  return list as FailOn[];
}

export function totalsOf(zones: readonly ZoneCounts[]): AuditTotals {
  const t: AuditTotals = {
    findings: 0,
    malicious_scripts: 0,
    malicious_connections: 0,
    insecure_cookies: 0,
    lookalike_hosts: 0,
    high: 0,
    medium: 0,
    low: 0,
  };
  for (const z of zones) {
    const lookalikes = (kind: InventoryKind) => z.summary[kind].lookalike ?? 0;
    t.malicious_scripts += z.summary.script.findings - lookalikes("script");
    t.malicious_connections += z.summary.connection.findings - lookalikes("connection");
    t.insecure_cookies += z.summary.cookie.findings;
    t.lookalike_hosts += lookalikes("script") + lookalikes("connection");
    for (const kind of INVENTORY_KINDS) {
      const s = z.summary[kind];
      t.findings += s.findings;
      t.high += s.by_severity.high;
      t.medium += s.by_severity.medium;
      t.low += s.by_severity.low;
    }
    if (z.inventory) {
      t.inventories = (t.inventories ?? 0) + 1;
      const count = (type: string) => z.inventory!.findings.filter((f) => f.type === type).length;
      t.unauthorized_scripts = (t.unauthorized_scripts ?? 0) + count("unauthorized");
      t.changed_scripts = (t.changed_scripts ?? 0) + count("changed");
      t.stale_authorizations = (t.stale_authorizations ?? 0) + count("stale");
      t.unreviewed_authorizations = (t.unreviewed_authorizations ?? 0) + count("unreviewed");
      t.lookalike_hosts += count("lookalike");
      for (const f of z.inventory.findings) {
        t.findings += 1;
        t[f.severity] += 1;
      }
    }
    if (z.headers) {
      const count = (type: string) => z.headers!.findings.filter((f) => f.type === type).length;
      t.pages_checked = (t.pages_checked ?? 0) + z.headers.pages.length;
      t.changed_headers = (t.changed_headers ?? 0) + count("changed-header");
      t.missing_headers = (t.missing_headers ?? 0) + count("missing-header");
      t.unreachable_pages = (t.unreachable_pages ?? 0) + count("page-unreachable");
      t.insecure_pages = (t.insecure_pages ?? 0) + count("insecure-page");
      t.policies_not_applied = (t.policies_not_applied ?? 0) + count("policy-not-applied");
      for (const f of z.headers.findings) {
        t.findings += 1;
        t[f.severity] += 1;
      }
    }
    if (z.alerting) {
      const count = (type: string) => z.alerting!.findings.filter((f) => f.type === type).length;
      t.alerting_checked = (t.alerting_checked ?? 0) + 1;
      t.no_alerting = (t.no_alerting ?? 0) + count("no-alerting");
      t.alerting_unread = (t.alerting_unread ?? 0) + count("alerting-unread");
      for (const f of z.alerting.findings) {
        t.findings += 1;
        t[f.severity] += 1;
      }
    }
  }
  return t;
}
