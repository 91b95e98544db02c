// `audit --format html`: one self-contained page that loads and runs nothing (a CSP meta forbids it;
// its one inline style allowed by hash). Every value goes through src/safe-html.ts.
// Spec: docs/commands/audit.md, "The HTML report".
import { createHash } from "node:crypto";
import type { Finding, InventoryCheck } from "../inventory/index.js";
import { html, SafeHtml } from "../safe-html.js";
import type { AlertingCheck } from "./alerting.js";
import { INVENTORY_KINDS, type AuditCollector } from "./collector.js";
import type { HeaderCheck } from "./headers.js";
import { describeResult, describeTotals } from "./render-describe.js";
import { code, type HtmlZone, table, zoneHtml } from "./render-html-zone.js";
import { describeGit, gitWord } from "./render-provenance.js";
import type {
  AlertingMeta,
  AuditFilters,
  AuditProvenance,
  AuditTotals,
  FailCounts,
  FormatRenderer,
  HeadersMeta,
  InventoryMeta,
  OverallResult,
  ZoneScope,
} from "./renderer-contract.js";

/** The page's only style: light, tables that wrap long URLs and hashes, page breaks for print. */
const STYLE = `
:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0 auto;max-width:82rem;padding:1.5rem;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:#1a1a1a;background:#fff}
h1{font-size:1.6rem;margin:0 0 .75rem}
h2{font-size:1.3rem;margin:2rem 0 .5rem;border-bottom:2px solid #ccc;padding-bottom:.2rem}
h3{font-size:1.1rem;margin:1.5rem 0 .4rem}
h4{font-size:1rem;margin:1rem 0 .3rem}
h2,h3,h4{break-after:avoid}
p,ul{margin:.4rem 0}
table{border-collapse:collapse;width:100%;margin:.4rem 0 1rem}
th,td{border:1px solid #bbb;padding:.3rem .45rem;text-align:left;vertical-align:top;overflow-wrap:break-word}
th{background:#f0f0f0}
thead{display:table-header-group}
tr{break-inside:avoid}
code,.any{overflow-wrap:anywhere}
code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.when{white-space:nowrap}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.4rem 0}
dt{font-weight:600}
dd{margin:0;overflow-wrap:anywhere}
.result{border:2px solid;padding:.6rem .9rem;margin:.5rem 0 1rem}
.result.pass{border-color:#1b7a2f;background:#eef8f0}
.result.fail{border-color:#b3261e;background:#fdf0ef}
.result strong{font-size:1.2rem}
.sev-high,.state-bad{color:#b3261e;font-weight:600}
.sev-medium{color:#8a5300;font-weight:600}
.state-ok{color:#1b7a2f}
.muted{color:#555}
section.zone{break-before:page}
@page{margin:14mm}
@media print{body{max-width:none;padding:0;font-size:10pt}.result.pass,.result.fail,th{background:none}}
`;

const HTML_CSP =
  `default-src 'none'; style-src 'sha256-${createHash("sha256").update(STYLE, "utf8").digest("base64")}'; ` +
  "base-uri 'none'; form-action 'none'";

/** The style sheet and the CSP as markup: constants of this file, never data (the style's hash is in the CSP). */
const STYLE_MARKUP = new SafeHtml(STYLE);
const CSP_MARKUP = new SafeHtml(HTML_CSP);

const COUNT_LABEL: Record<keyof FailCounts, string> = {
  malicious: "malicious scripts and connections",
  lookalike: "look-alike hosts",
  insecure: "insecure cookies",
  unauthorized: "unauthorized scripts",
  unreviewed: "unreviewed (draft) entries",
  changed: "changed scripts",
  stale: "stale authorizations",
  headers: "changed or missing headers",
  unreachable: "payment pages not checked",
  policy: "policies not applied",
  alerting: "zones without Page Shield alerting",
};

function resultHtml(r: OverallResult): SafeHtml {
  const on = new Set(r.fail_on);
  const rows = (Object.keys(COUNT_LABEL) as Array<keyof FailCounts>).map((k) => [
    html`<code>${k}</code>`,
    COUNT_LABEL[k],
    r.counts[k],
    on.has(k) || on.has("any") ? (r.failed_on.includes(k) || r.failed_on.includes("any") ? "fails" : "yes") : "no",
  ]);
  return html`<div class="result ${r.status}"><p><strong>${r.status === "fail" ? "FAIL" : "PASS"}</strong>
(exit ${r.exit_code})</p><p>${describeResult(r)}</p></div>
${table(["--fail-on", "What it counts", "Count", "In --fail-on"], rows)}`;
}

function provenanceHtml(p: AuditProvenance): SafeHtml {
  const files =
    p.files.length === 0
      ? html`<p>Configuration: none (no -c, and no ./zoneform.yaml).</p>`
      : table(
          ["Configuration file", "sha256", "Git commit", "Git state"],
          p.files.map((f) => [
            code(f.path),
            code(f.sha256),
            f.git !== null && !("error" in f.git) ? code(f.git.commit ?? "no commit yet") : code(undefined),
            html`<span class="${gitWord(f.git) === "clean" ? "state-ok" : "state-bad"}">${describeGit(f.git)}</span>`,
          ]),
        );
  const list = (xs: readonly string[] | undefined) =>
    (xs ?? []).map((x, i) => html`${i > 0 ? html`<br>` : ""}<code>${x}</code>`);
  // A column only when some zone has something in it.
  const columns = [
    { title: "Zone", cell: (z: ZoneScope) => code(z.zone_id), shown: true },
    { title: "Name", cell: (z: ZoneScope) => html`<span class="any">${z.name ?? ""}</span>`, shown: true },
    { title: "Payment pages", cell: (z: ZoneScope) => list(z.pages), shown: p.zones.some((z) => z.pages?.length) },
    {
      title: "Headers fetched from",
      cell: (z: ZoneScope) => list(z.header_urls),
      shown: p.zones.some((z) => z.header_urls?.length),
    },
  ].filter((c) => c.shown);
  const zones = table(
    columns.map((c) => c.title),
    p.zones.map((z) => columns.map((c) => c.cell(z))),
  );
  return html`<h2>Provenance</h2>
<dl><dt>zoneform</dt><dd>${p.zoneform_version}</dd><dt>Run at</dt><dd>${p.run_at}</dd></dl>
${files}
<h3>Zones and pages in scope</h3>
${zones}`;
}

export function htmlPage(title: string, body: SafeHtml): SafeHtml {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP_MARKUP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE_MARKUP}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function documentHtml(p: AuditProvenance, r: OverallResult, zones: readonly SafeHtml[], totals: string): SafeHtml {
  return htmlPage(
    `Page Shield audit: ${r.status === "fail" ? "FAIL" : "PASS"} (${p.run_at})`,
    html`<header>
<h1>Page Shield audit</h1>
${resultHtml(r)}
${provenanceHtml(p)}
</header>
<main>
${zones}
</main>
<footer><p>${totals}</p></footer>`,
  );
}

export class HtmlRenderer implements FormatRenderer {
  private provenance?: AuditProvenance;
  private readonly zones: SafeHtml[] = [];
  private zone?: HtmlZone;

  constructor(private readonly write: (text: string) => void) {}

  begin(provenance: AuditProvenance): void {
    this.provenance = provenance;
  }

  zoneStart(zoneId: string, filters: AuditFilters): void {
    const name = this.provenance?.zones.find((z) => z.zone_id === zoneId)?.name;
    this.zone = { zoneId, ...(name !== undefined ? { name } : {}), filters, kinds: [] };
  }

  finding(_zoneId: string, _f: Finding): void {}

  inventory(zoneId: string, check: InventoryCheck, meta: InventoryMeta): void {
    this.current(zoneId).inventory = { check, meta };
  }

  headers(zoneId: string, check: HeaderCheck, meta: HeadersMeta): void {
    this.current(zoneId).headers = { check, meta };
  }

  alerting(zoneId: string, check: AlertingCheck, meta: AlertingMeta): void {
    this.current(zoneId).alerting = { check, meta };
  }

  zoneEnd(zoneId: string, c: AuditCollector): void {
    const z = this.current(zoneId);
    z.kinds = INVENTORY_KINDS.map((kind) => ({
      kind,
      summary: c.summary[kind],
      worst: c.worst(kind),
      notShown: c.notShown(kind),
    }));
    // Rendered now: only the markup is kept, not the zone's checks.
    this.zones.push(zoneHtml(z, this.zones.length));
    this.zone = undefined;
  }

  end(totals: AuditTotals, result: OverallResult): void {
    const p = this.provenance ?? { zoneform_version: "unknown", files: [], run_at: "", zones: [] };
    this.write(documentHtml(p, result, this.zones, describeTotals(totals)).markup);
  }

  private current(zoneId: string): HtmlZone {
    this.zone ??= { zoneId, kinds: [] };
    return this.zone;
  }
}
