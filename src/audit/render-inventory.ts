// The script inventory check (PCI DSS 6.4.3, 11.6.1) in audit's formats for people: text, and the Markdown
// evidence (each authorized script with justification, owner, hashes; the findings; how it maps).
// URLs, justifications and owners are other people's text: printable in text, through the one Markdown
// encoder in Markdown.
import type { InventoryCheck, InventoryFinding } from "../inventory/index.js";
import { mdCell, mdCode, mdCodeCell, mdText } from "../safe-markdown.js";
import { printable } from "../safe-text.js";
import { clipUrl, layoutTable, type TableColumn } from "../text-width.js";
import { plural } from "./render-describe.js";
import type { InventoryMeta } from "./renderer-contract.js";

export const FINDING_TITLE: Record<InventoryFinding["type"], string> = {
  lookalike: "Look-alike host",
  unauthorized: "Unauthorized script",
  unreviewed: "Unreviewed script (draft entry)",
  changed: "Changed script",
  stale: "Stale authorization",
};

function describeQuery(check: InventoryCheck, meta: InventoryMeta): string {
  return printable(
    `page_url ${meta.query.page_url ?? check.pages.join(",")}; status ${meta.query.status ?? "active"}; ` +
      `stale after ${check.stale_days} days`,
  );
}

function shortHash(h: string | undefined): string {
  return h ? (h.length > 16 ? `${h.slice(0, 16)}…` : h) : "-";
}

export function inventoryText(check: InventoryCheck, meta: InventoryMeta, width?: number): string {
  const lines = [
    `Script inventory (PCI DSS 6.4.3, 11.6.1), checked at ` +
      `${meta.checked_at}${meta.source ? ` against ${printable(meta.source)}` : ""}`,
    `  pages in scope: ${printable(check.pages.join(", "))}`,
    `  filters: ${describeQuery(check, meta)}`,
    `  ${check.scripts_seen} in-scope script${plural(check.scripts_seen)} read, ${check.details_read} ` +
      `script detail${plural(check.details_read)} read, ${check.authorized.length} authorized ` +
      `entr${check.authorized.length === 1 ? "y" : "ies"}`,
  ];
  // Hashes yield first (shortened, then dropped); a URL is cut in its middle, its host and file name kept.
  const cols: TableColumn[] = [
    { title: "STATE" },
    { title: "URL", clip: "url" },
    { title: "OWNER" },
    { title: "PINNED", yields: true, min: 9 },
    { title: "SEEN HASH", yields: true, min: 9 },
    { title: "LAST SEEN" },
  ];
  const cells = check.authorized.map((a) => [
    a.state,
    clipUrl(printable(a.url), 72),
    printable(a.owner ?? "-"),
    shortHash(a.pinned_hash),
    shortHash(a.seen_hash),
    a.last_seen_at ?? "never",
  ]);
  if (cells.length > 0) lines.push(...layoutTable(cols, cells, width, { indent: "  " }));
  if (check.findings.length === 0) lines.push("  no unauthorized or changed scripts, no stale authorizations");
  for (const f of check.findings)
    lines.push(`  ${f.severity.toUpperCase()} ${printable(f.message)} [${f.requirement}]`);
  return `${lines.join("\n")}\n\n`;
}

export function inventoryMarkdown(zoneId: string, check: InventoryCheck, meta: InventoryMeta): string {
  // Evidence for an assessor: cells are cut only past 1000 characters.
  const esc = (v: string | undefined) => (v === undefined || v === "" ? "-" : mdCell(v, 1000));
  const code = (v: string | undefined) => (v ? mdCodeCell(v, 1000) : "-");
  const out: string[] = [
    "### Script inventory of the payment pages (PCI DSS v4.0 6.4.3 and 11.6.1)",
    "",
    `- Zone: ${mdCode(zoneId)}${meta.zone_name ? ` (${mdText(meta.zone_name)})` : ""}`,
    `- Checked at: ${meta.checked_at}`,
    ...(meta.source ? [`- Inventory: ${mdCode(meta.source)}`] : []),
    `- Pages in scope: ${check.pages.map((p) => mdCode(p)).join(", ")}`,
    `- Filters: ${mdText(describeQuery(check, meta))}`,
    `- Read: ${check.scripts_seen} in-scope script${plural(check.scripts_seen)}, ${check.details_read} ` +
      `script detail${plural(check.details_read)}`,
    "",
    "#### Authorized scripts (6.4.3: inventory, written justification, authorization)",
    "",
  ];
  if (check.authorized.length === 0) out.push("None: the inventory authorizes no script.", "");
  else {
    out.push(
      "| Script | Justification | Owner | Pinned hash | Last seen hash | First seen | Last seen | State |",
      "|---|---|---|---|---|---|---|---|",
    );
    for (const a of check.authorized) {
      out.push(
        `| ${esc(a.url)} | ${esc(a.justification)} | ${esc(a.owner)} | ${code(a.pinned_hash)} | ` +
          `${code(a.seen_hash)} | ${esc(a.first_seen_at)} | ${esc(a.last_seen_at)} | ${mdCell(a.state)} |`,
      );
    }
    out.push("");
  }
  out.push("#### Findings", "");
  if (check.findings.length === 0)
    out.push("No unauthorized or changed script was seen on the pages in scope; no authorization is stale.", "");
  else {
    out.push("| Finding | PCI DSS | Script | Detail |", "|---|---|---|---|");
    for (const f of check.findings)
      out.push(`| ${FINDING_TITLE[f.type]} | ${f.requirement} | ${esc(f.url)} | ${esc(f.message)} |`);
    out.push("");
  }
  out.push(
    "#### How this maps to PCI DSS v4.0",
    "",
    "- **6.4.3** (scripts on payment pages are inventoried, each with a written justification, and a method " +
      "confirms each is authorized): the table of authorized scripts is the inventory and its justifications, " +
      "reviewed in the configuration's pull requests; every script Page Shield saw on the pages in scope is " +
      "checked against it (an *unauthorized script* is one it does not authorize), and an authorization no " +
      "longer used is reported as *stale*.",
    "- **11.6.1** (a change- and tamper-detection mechanism alerts on unauthorized modification of the " +
      "scripts): each authorized script pinned to a reviewed `hash` is compared with the hash Page Shield last " +
      "fetched; a *changed script* says when the new version was fetched. Run on a schedule, the audit exits 2 " +
      "on an unauthorized or changed script.",
    "",
  );
  return `${out.join("\n")}\n`;
}
