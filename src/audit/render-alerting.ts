// The zone's Page Shield alerting in text, Markdown evidence and CSV rows; the API's text is escaped
// per format. Spec: docs/commands/audit.md, "Page Shield alerting".
import { mdCell, mdCode, mdCodeCell, mdText } from "../safe-markdown.js";
import { printable } from "../safe-text.js";
import { layoutTable, type TableColumn } from "../text-width.js";
import type { AlertingCheck, AlertPolicyEvidence } from "./alerting.js";
import type { AlertingMeta } from "./renderer-contract.js";

const SCOPE: Record<AlertPolicyEvidence["scope"], string> = {
  account: "every zone of the account",
  zone: "this zone (scoped)",
};

export function recipients(p: AlertPolicyEvidence): string[] {
  return [...p.email.map((e) => `email ${e}`), ...p.webhooks.map((w) => `webhook ${w}`), ...p.other];
}

/** The zones and who is notified are prose: they wrap rather than hide a recipient behind a cut. */
const COLUMNS: TableColumn[] = [
  { title: "POLICY" },
  { title: "ALERT TYPE" },
  { title: "STATE" },
  { title: "ZONES", clip: "wrap" },
  { title: "NOTIFIES", clip: "wrap" },
];

export function alertingText(check: AlertingCheck, meta: AlertingMeta, width?: number): string {
  const lines = [
    `Page Shield alerting (PCI DSS 11.6.1), read at ${meta.checked_at} from account ${printable(check.account_id)}`,
  ];
  if (check.error !== undefined) lines.push(`  could not be read: ${printable(check.error)}`);
  const cells = check.policies.map((p) => [
    printable(p.name),
    printable(p.alert_type),
    p.enabled ? "enabled" : "disabled",
    SCOPE[p.scope],
    printable(recipients(p).join(", ") || "no one"),
  ]);
  if (cells.length > 0) lines.push(...layoutTable(COLUMNS, cells, width, { indent: "  " }));
  else if (check.error === undefined) lines.push("  no Page Shield alert policy covers the zone");
  for (const f of check.findings)
    lines.push(`  ${f.severity.toUpperCase()} ${printable(f.message)} [${f.requirement}]`);
  return `${lines.join("\n")}\n\n`;
}

export function alertingMarkdown(zoneId: string, check: AlertingCheck, meta: AlertingMeta): string {
  const out: string[] = [
    "### Notification policies for the Page Shield alerts (PCI DSS v4.0.1 11.6.1)",
    "",
    `- Zone: ${mdCode(zoneId)}${meta.zone_name ? ` (${mdText(meta.zone_name)})` : ""}`,
    `- Account: ${mdCode(check.account_id)} (its notification policies, read with the account's token)`,
    `- Read at: ${meta.checked_at}`,
    "",
  ];
  if (check.error !== undefined) out.push(`The policies could not be read: ${mdText(check.error)}`, "");
  else if (check.policies.length === 0) out.push("No Page Shield alert policy covers the zone.", "");
  else {
    out.push(
      "| Policy | Id | Alert type | What it watches | State | Zones | Notifies |",
      "|---|---|---|---|---|---|---|",
    );
    for (const p of check.policies) {
      const who = recipients(p);
      out.push(
        `| ${mdCell(p.name, 400)} | ${mdCodeCell(p.id, 100)} | ${mdCodeCell(p.alert_type, 100)} | ` +
          `${p.watches ? mdCell(p.watches, 400) : "-"} | ${p.enabled ? "enabled" : "**disabled**"} | ` +
          `${SCOPE[p.scope]} | ${who.length > 0 ? mdCell(who.join(", "), 1000) : "**no one**"} |`,
      );
    }
    out.push("");
    if (check.policies.some((p) => p.scope === "zone"))
      out.push(
        "A scoped policy notifies only of resources the zone's enabled content security rules (Page Shield " +
          "policies) cover, as Cloudflare documents scoped alerts.",
        "",
      );
  }
  for (const f of check.findings) out.push(`- **${f.type}** (${f.requirement}, ${f.severity}): ${mdText(f.message)}`);
  if (check.findings.length > 0) out.push("");
  out.push(
    "- **11.6.1** (the change- and tamper-detection mechanism alerts personnel to unauthorized modification): " +
      "the policies above are how the detections of Page Shield (new scripts and hosts, changed code, " +
      "malicious scripts, hosts and URLs) reach people; an enabled policy with someone to notify is what makes " +
      "the detection an alert.",
    "",
  );
  return `${out.join("\n")}\n`;
}

export function alertingCsvRows(check: AlertingCheck, meta: AlertingMeta): Array<Record<string, string>> {
  const rows: Array<Record<string, string>> = check.policies.map((p) => ({
    finding: "alert_policy",
    requirement: "11.6.1",
    id: p.id,
    subject: p.name,
    status: p.enabled ? "enabled" : "disabled",
    reasons:
      `read at ${meta.checked_at}; account ${check.account_id}; alert_type ${p.alert_type}; ` +
      `zones: ${SCOPE[p.scope]}; notifies: ${recipients(p).join("; ") || "no one"}`,
  }));
  for (const f of check.findings)
    rows.push({
      finding: f.type,
      requirement: f.requirement,
      severity: f.severity,
      subject: `account ${f.account_id}`,
      reasons: f.message,
    });
  return rows;
}
