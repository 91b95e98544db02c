// One zone of the HTML report. Every value is other people's text and goes through src/safe-html.ts.
// Spec: docs/commands/audit.md, "The HTML report".
import type { Finding, InventoryCheck, InventoryKind } from "../inventory/index.js";
import { html, type HtmlValue, type SafeHtml } from "../safe-html.js";
import type { AlertingCheck } from "./alerting.js";
import type { KindSummary } from "./collector.js";
import type { HeaderCheck, HeaderFinding } from "./headers.js";
import { recipients } from "./render-alerting.js";
import { describeCategories, describeFilters, describeKind, KIND_TITLE } from "./render-describe.js";
import { FINDING_TITLE } from "./render-inventory.js";
import type { AlertingMeta, AuditFilters, HeadersMeta, InventoryMeta } from "./renderer-contract.js";

export interface HtmlZone {
  zoneId: string;
  name?: string;
  filters?: AuditFilters;
  inventory?: { check: InventoryCheck; meta: InventoryMeta };
  headers?: { check: HeaderCheck; meta: HeadersMeta };
  alerting?: { check: AlertingCheck; meta: AlertingMeta };
  kinds: Array<{ kind: InventoryKind; summary: KindSummary; worst: readonly Finding[]; notShown: number }>;
}

const DASH = html`<span class="muted">-</span>`;

export function code(text: string | undefined): SafeHtml {
  return text === undefined || text === "" ? DASH : html`<code>${text}</code>`;
}

/** Other people's text in a cell: it wraps anywhere (a long word cannot widen the table past the page). */
function text(value: string | undefined): HtmlValue {
  return value === undefined || value === "" ? DASH : html`<span class="any">${value}</span>`;
}

/** A sentence that may hold a long URL: it wraps anywhere. */
function detail(value: string): SafeHtml {
  return html`<span class="any">${value}</span>`;
}

/** An instant: its date and its time each kept on one line, a break allowed between them. */
function when(value: string | undefined): HtmlValue {
  if (value === undefined || value === "") return DASH;
  const t = value.indexOf("T");
  return t < 0
    ? value
    : html`<span class="when">${value.slice(0, t + 1)}</span><wbr><span class="when">${value.slice(t + 1)}</span>`;
}

export function table(head: readonly string[], rows: ReadonlyArray<readonly HtmlValue[]>): SafeHtml {
  return html`<table><thead><tr>${head.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows.map(
    (r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`,
  )}</tbody></table>`;
}

function severity(s: string): SafeHtml {
  return html`<span class="sev-${s}">${s}</span>`;
}

function authorizedScripts(check: InventoryCheck, meta: InventoryMeta): SafeHtml {
  const rows = check.authorized.map((a) => [
    code(a.url),
    text(a.justification),
    text(a.owner),
    code(a.pinned_hash),
    code(a.seen_hash),
    when(a.first_seen_at),
    when(a.last_seen_at),
    html`<span class="${a.state === "ok" ? "state-ok" : "state-bad"}">${a.state}</span>`,
  ]);
  const against = meta.source ? html` against <code>${meta.source}</code>` : "";
  const pages = check.pages.map((p, i) => html`${i > 0 ? ", " : ""}<code>${p}</code>`);
  return html`<h3>Scripts of the payment pages (PCI DSS 6.4.3: inventory, written justification, authorization)</h3>
<p>Checked at ${meta.checked_at}${against}; pages in scope ${pages}; ${check.scripts_seen} in-scope scripts read,
${check.details_read} script details; stale after ${check.stale_days} days.</p>
${
  rows.length === 0
    ? html`<p>None: the inventory authorizes no script.</p>`
    : table(
        ["Script", "Justification", "Owner", "Pinned hash", "Last seen hash", "First seen", "Last seen", "State"],
        rows,
      )
}`;
}

interface RequirementRow {
  requirement: string;
  cells: HtmlValue[];
}

const HEADER_TITLE: Record<HeaderFinding["type"], string> = {
  "changed-header": "Changed header",
  "missing-header": "Missing header",
  "page-unreachable": "Page unreachable",
  "insecure-page": "Insecure page",
  "policy-not-applied": "Policy not applied",
};

function requirementRows(z: HtmlZone): RequirementRow[] {
  const rows: RequirementRow[] = [];
  for (const f of z.inventory?.check.findings ?? [])
    rows.push({
      requirement: f.requirement,
      cells: [FINDING_TITLE[f.type], severity(f.severity), code(f.url), detail(f.message)],
    });
  for (const f of z.headers?.check.findings ?? [])
    rows.push({
      requirement: f.requirement,
      cells: [
        HEADER_TITLE[f.type],
        severity(f.severity),
        html`${code(f.url)}${f.header ? html` ${code(f.header)}` : ""}`,
        detail(f.message),
      ],
    });
  for (const f of z.alerting?.check.findings ?? [])
    rows.push({
      requirement: f.requirement,
      cells: [
        f.type === "no-alerting" ? "No alerting" : "Alerting unread",
        severity(f.severity),
        code(f.account_id),
        detail(f.message),
      ],
    });
  return rows;
}

function findingsByRequirement(z: HtmlZone): SafeHtml {
  const rows = requirementRows(z);
  const checked = z.inventory || z.headers || z.alerting;
  if (!checked) return html``;
  if (rows.length === 0)
    return html`<h3>Findings by PCI DSS requirement</h3><p>None: every check of the zone passed.</p>`;
  const order = [...new Set(["6.4.3", "11.6.1", ...rows.map((r) => r.requirement)])];
  return html`<h3>Findings by PCI DSS requirement</h3>${order.map((req) => {
    const mine = rows.filter((r) => r.requirement === req);
    return mine.length === 0
      ? ""
      : html`<h4>PCI DSS ${req}</h4>${table(
          ["Finding", "Severity", "Subject", "Detail"],
          mine.map((r) => r.cells),
        )}`;
  })}`;
}

function headersSection(check: HeaderCheck, meta: HeadersMeta): SafeHtml {
  const pinned = meta.pinned_values ?? {};
  const rows: HtmlValue[][] = [];
  for (const page of check.pages) {
    const findings = check.findings.filter((f) => f.url === page.url);
    if (page.result === "unreachable" || page.result === "insecure") {
      rows.push([code(page.url), DASH, DASH, html`<span class="state-bad">${page.summary}</span>`]);
      continue;
    }
    for (const header of check.pinned) {
      const f = findings.find(
        (x) => x.header === header && (x.type === "changed-header" || x.type === "missing-header"),
      );
      const seen = !f
        ? html`<span class="state-ok">as pinned</span>`
        : f.type === "missing-header"
          ? html`<span class="state-bad">not sent</span>`
          : html`<span class="state-bad">changed:</span> ${code(f.seen)}`;
      rows.push([code(page.url), code(header), code(Object.hasOwn(pinned, header) ? pinned[header] : undefined), seen]);
    }
  }
  return html`<h3>Security headers of the payment pages, pinned against seen (PCI DSS 11.6.1)</h3>
<p>Checked at ${meta.checked_at}${meta.source ? html` against <code>${meta.source}</code>` : ""}; each page fetched once
(GET, no cookies or credentials, headers only) within ${check.timeout_ms} ms.</p>
${rows.length === 0 ? html`<p>No header is pinned.</p>` : table(["Page", "Header", "Pinned", "Seen"], rows)}`;
}

function alertingSection(check: AlertingCheck, meta: AlertingMeta): SafeHtml {
  const rows = check.policies.map((p) => [
    text(p.name),
    code(p.id),
    code(p.alert_type),
    text(p.watches),
    p.enabled ? "enabled" : html`<span class="state-bad">disabled</span>`,
    p.scope === "account" ? "every zone of the account" : "this zone (scoped)",
    recipients(p).length > 0 ? detail(recipients(p).join(", ")) : html`<span class="state-bad">no one</span>`,
  ]);
  return html`<h3>Alert policies in place (PCI DSS 11.6.1: alert personnel)</h3>
<p>The Page Shield alert policies of account <code>${check.account_id}</code> that cover the zone, read at
${meta.checked_at}.</p>
${
  check.error !== undefined
    ? html`<p class="state-bad">The policies could not be read: ${check.error}</p>`
    : rows.length === 0
      ? html`<p class="state-bad">No Page Shield alert policy covers the zone.</p>`
      : table(["Policy", "Id", "Alert type", "What it watches", "State", "Zones", "Notifies"], rows)
}`;
}

function verdictRows(kind: InventoryKind, worst: readonly Finding[]): HtmlValue[][] {
  return worst.map((f) => [
    severity(f.severity),
    kind === "cookie" ? text(f.subject) : code(f.subject),
    text(f.host),
    ...(kind === "cookie" ? [] : [text(f.status)]),
    detail(f.reasons.join("; ")),
  ]);
}

function verdictsSection(z: HtmlZone): SafeHtml {
  const tables = z.kinds
    .filter((k) => k.worst.length > 0 || k.notShown > 0)
    .map((k) => {
      const categories = describeCategories(k.summary);
      const head =
        k.kind === "cookie" ? ["Severity", "Name", "Host", "Why"] : ["Severity", "URL", "Host", "Status", "Why"];
      return html`<h4>${KIND_TITLE[k.kind]}</h4>${categories ? html`<p>Malicious ${categories}</p>` : ""}${
        k.worst.length > 0 ? table(head, verdictRows(k.kind, k.worst)) : ""
      }${k.notShown > 0 ? html`<p>…and ${k.notShown} more, not shown (raise --limit, or use --format csv).</p>` : ""}`;
    });
  return html`<h3>Page Shield: scripts, connections and cookies</h3>
<ul>${z.kinds.map((k) => html`<li>${describeKind(k.kind, k.summary)}</li>`)}</ul>${tables}`;
}

export function zoneHtml(z: HtmlZone, index: number): SafeHtml {
  return html`<section class="zone" id="zone-${index + 1}">
<h2>Zone ${z.name !== undefined ? html`${z.name} ` : ""}<code>${z.zoneId}</code></h2>
${z.filters ? html`<p class="muted">Filters: ${describeFilters(z.filters)}</p>` : ""}
${z.inventory ? authorizedScripts(z.inventory.check, z.inventory.meta) : ""}
${findingsByRequirement(z)}
${z.headers ? headersSection(z.headers.check, z.headers.meta) : ""}
${z.alerting ? alertingSection(z.alerting.check, z.alerting.meta) : ""}
${verdictsSection(z)}
</section>
`;
}
