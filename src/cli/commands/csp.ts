// `zoneform csp suggest`: a script-src / connect-src value built from the active, non-malicious scripts and
// connections Page Shield found, printed as a directive and as a policy ready to paste under `page_shield.policies`.
// Spec: docs/commands/csp.md.
import { Option, type Command } from "commander";
import type { CloudflareClient } from "../../cloudflare/index.js";
import { CspSuggester, hostExpression, type CspSuggestion, type DroppedSource } from "../../csp/index.js";
import { escapeTemplates, pageShieldApiPath, POLICIES_PATH, SCRIPT_INVENTORY_PATH } from "../../sections/index.js";
import { MALICIOUS_SCORE_THRESHOLD, THREAT_SCORE_THRESHOLD, inventoryPolicy } from "../../inventory/index.js";
import { UsageError } from "../../errors.js";
import { safeYamlStringify } from "../../safe-yaml.js";
import { printable } from "../../safe-text.js";
import { addReadCommandOptions, clientFromOptions, type ClientFlagValues } from "../client-options.js";
import type { CommandContext } from "../command.js";
import { progressFor } from "../progress.js";
import { parseZoneRefs, resolveZoneRef } from "../zone-ref.js";
import { type CommandTable, collectList, commandFromTable } from "../option-table.js";
import { parseScoreThreshold } from "./audit.js";
import { loadInventories } from "../inventory-config.js";
import { addConfigOption } from "../options.js";
import type { CliIO } from "../io.js";

interface CspFlags extends ClientFlagValues {
  zone?: string[];
  quiet?: boolean;
  host?: string[];
  format: string;
  action: string;
  description?: string;
  wildcardThreshold: string;
  maliciousBelow: string;
  threatBelow: string;
  fromInventory?: boolean;
  config?: string;
}

const PER_PAGE = 100;

/** Pages through the zone's active scripts and connections into a suggestion (origins only in memory). */
export async function suggestCsp(
  client: CloudflareClient,
  zoneId: string,
  opts: {
    hosts?: string[];
    wildcardThreshold?: number;
    maliciousBelow?: number;
    threatBelow?: number;
    onItem?: (kind: "script" | "connection") => void;
  } = {},
): Promise<CspSuggestion> {
  const suggester = new CspSuggester({
    wildcardThreshold: opts.wildcardThreshold,
    maliciousBelow: opts.maliciousBelow,
    threatBelow: opts.threatBelow,
  });
  const query = { status: "active", ...(opts.hosts?.length ? { hosts: opts.hosts.join(",") } : {}) };
  for (const [kind, list] of [
    ["script", "scripts"],
    ["connection", "connections"],
  ] as const) {
    for await (const raw of client.paginate<Record<string, unknown>>(pageShieldApiPath(zoneId, list), {
      query,
      perPage: PER_PAGE,
    })) {
      suggester.add(kind, raw);
      opts.onItem?.(kind);
    }
  }
  return suggester.result();
}

export function policyBlock(s: CspSuggestion, opts: { description: string; action: string }): string {
  const policy = {
    description: opts.description,
    action: opts.action,
    expression: hostExpression(s.page_hosts),
    value: s.value,
    enabled: true,
  };
  // A comment holds one line: a newline in a host or a reason must not start YAML of its own.
  const excluded = s.excluded.map((e) => `#   ${printable(`${e.host}: ${e.reasons.join("; ")}`)}\n`).join("");
  const note = excluded ? `# Left out, malicious:\n${excluded}` : "";
  const dropped = droppedLines(s)
    .map((l) => `#   ${l}\n`)
    .join("");
  const droppedNote = dropped ? `# Left out, not a CSP source or from a look-alike host:\n${dropped}` : "";
  return note + droppedNote + safeYamlStringify([escapeTemplates(policy)], { lineWidth: 0 });
}

/** One printable line per dropped row (kind, example, reason, count), and one for the rows not kept. */
export function droppedLines(s: CspSuggestion): string[] {
  const row = (d: DroppedSource) =>
    printable(`${d.kind} ${d.example}: ${d.reason}${d.count > 1 ? ` (${d.count} items from ${d.host})` : ""}`);
  return [...s.dropped.map(row), ...(s.dropped_more > 0 ? [`…and ${s.dropped_more} more`] : [])];
}

/** The Warning line on stderr when anything was dropped (the output lists what and why). */
export function droppedWarning(s: CspSuggestion): string {
  const n = s.counts.dropped + s.dropped.filter((d) => d.kind === "page host").reduce((a, d) => a + d.count, 0);
  return n === 0
    ? ""
    : `Warning: csp suggest left out ${n} item(s) whose URL or page host is not a valid CSP source or is a ` +
        "look-alike of a trusted host; the output lists each with the reason\n";
}

export function renderSuggestionText(zoneId: string, s: CspSuggestion, block: string): string {
  const lines = [
    `CSP suggestion for zone ${zoneId}, from ${s.counts.scripts} active ` +
      `script${s.counts.scripts === 1 ? "" : "s"} and ${s.counts.connections} ` +
      `connection${s.counts.connections === 1 ? "" : "s"} (malicious: js_integrity_score below ` +
      `${s.malicious_below}, magecart/malware/cryptomining_score below ${s.threat_below}, or reported):`,
    "",
    ...s.value.split("; ").map((d) => `  ${printable(d)}`),
    "",
  ];
  if (s.excluded.length > 0) {
    const hosts = s.excluded.map((e) => printable(e.host));
    const width = Math.max(...hosts.map((h) => h.length));
    lines.push("Left out, malicious (never allow these hosts):");
    s.excluded.forEach((e, i) => {
      lines.push(
        `  ${hosts[i]!.padEnd(width)}  ${e.scripts} script(s), ${e.connections} connection(s): ` +
          `${printable(e.reasons.join("; "))}`,
      );
    });
    lines.push("");
  }
  if (s.self_hosted_malicious.count > 0) {
    lines.push(
      `Warning: ${s.self_hosted_malicious.count} malicious item(s) served from the zone's own hosts; 'self' ` +
        `cannot exclude them, remove them from the site:`,
    );
    lines.push(...s.self_hosted_malicious.examples.map((u) => `  ${printable(u)}`), "");
  }
  const dropped = droppedLines(s);
  if (dropped.length > 0) {
    lines.push("Left out, not a valid CSP source or from a look-alike host (never allow these):");
    lines.push(...dropped.map((l) => `  ${l}`), "");
  }
  if (s.counts.skipped > 0)
    lines.push(`${s.counts.skipped} item(s) without an http(s) or ws(s) origin (data:, blob:) were skipped.`, "");
  lines.push(
    `Paste under ${POLICIES_PATH} (action log reports violations without blocking; switch to allow once the ` +
      `reports are clean):`,
    "",
  );
  // The policy block is YAML: the yaml library escapes C0 controls, not DEL, C1 or bidirectional marks.
  return `${lines.join("\n")}\n${printable(block, { keepNewlines: true })}`;
}

const SUGGEST: CommandTable = {
  name: "suggest",
  description: "Suggest script-src and connect-src from the zone's active, non-malicious scripts and connections.",
  options: [
    {
      flags: "--host <host>",
      description: "only items seen on this host; * at the start or end is a wildcard (repeatable)",
      parse: collectList,
    },
    {
      flags: "--format <format>",
      description: "text | yaml (yaml: only the policy block, to paste or append)",
      default: "text",
    },
    new Option("--action <action>", "action of the suggested policy").choices(["log", "allow"]).default("log"),
    { flags: "--description <text>", description: "description (identity) of the suggested policy" },
    {
      flags: "--wildcard-threshold <n>",
      description: "this many subdomains of one domain become https://*.domain (0: never)",
      default: "5",
    },
    {
      flags: "--malicious-below <score>",
      description: "a script whose js_integrity_score is below this is malicious and its host left out (1-100)",
      default: String(MALICIOUS_SCORE_THRESHOLD),
    },
    {
      flags: "--threat-below <score>",
      description: "…or whose magecart_score, malware_score or cryptomining_score is below this (1-100)",
      default: String(THREAT_SCORE_THRESHOLD),
    },
    {
      flags: "--from-inventory",
      description:
        `propose the allow policy of the payment pages from the file's ${SCRIPT_INVENTORY_PATH} (no API call): ` +
        `script-src holds exactly the authorized scripts`,
    },
  ],
};

export function register(program: Command, ctx: CommandContext): void {
  const csp = program
    .command("csp")
    .description("Content security policy helpers built from the Page Shield inventory.");
  const cmd = commandFromTable(csp, SUGGEST);
  addConfigOption(cmd);
  addReadCommandOptions(cmd, { single: true, progress: true });
  cmd.action((opts) => runCspSuggest(opts, ctx, cmd));
}

async function runCspSuggest(opts: CspFlags, ctx: CommandContext, cmd: Command): Promise<void> {
  const { io } = ctx;
  if (opts.fromInventory) {
    const explicitAction = cmd.getOptionValueSource("action") === "cli";
    return suggestFromInventory(io, opts, explicitAction ? (opts.action as "allow" | "log") : "allow");
  }
  const [zoneRef] = parseZoneRefs(opts.zone, "csp suggest", { single: "a policy belongs to one zone" });
  if (!["text", "yaml"].includes(opts.format))
    throw new UsageError(`--format ${opts.format}: expected one of text, yaml`);
  if (!/^\d+$/.test(opts.wildcardThreshold))
    throw new UsageError(`--wildcard-threshold must be a whole number, got "${opts.wildcardThreshold}"`);
  const maliciousBelow = parseScoreThreshold(opts.maliciousBelow);
  const threatBelow = parseScoreThreshold(opts.threatBelow, "--threat-below");
  const progress = progressFor(io, opts);
  const client = clientFromOptions(opts, io, undefined, progress);
  try {
    const zoneId = await resolveZoneRef(client, zoneRef!);
    progress.begin("csp suggest", "zones done", 1);
    const s = await suggestCsp(client, zoneId, {
      hosts: opts.host,
      wildcardThreshold: Number(opts.wildcardThreshold),
      maliciousBelow,
      threatBelow,
      onItem: (kind) => progress.count(`${kind}s`),
    });
    progress.end();
    const description = opts.description ?? "Suggested by zoneform csp suggest";
    const block = policyBlock(s, { description, action: opts.action });
    io.stdout.write(opts.format === "yaml" ? block : renderSuggestionText(zoneId, s, block));
    io.stderr.write(droppedWarning(s));
  } finally {
    progress.end();
    await client.close();
  }
}

async function suggestFromInventory(io: CliIO, opts: CspFlags, action: "allow" | "log"): Promise<void> {
  if (!["text", "yaml"].includes(opts.format))
    throw new UsageError(`--format ${opts.format}: expected one of text, yaml`);
  const loaded = await loadInventories(opts.config ?? "zoneform.yaml", io);
  const zones = loaded?.zones ?? [];
  const key = (v: string) => v.trim().toLowerCase().replace(/\.$/, "");
  const wanted = opts.zone ?? [];
  const chosen =
    wanted.length > 0
      ? zones.filter((z) =>
          wanted.some((w) => key(w) === z.zone_id || (z.name !== undefined && key(w) === key(z.name))),
        )
      : zones;
  if (chosen.length === 0) {
    throw new UsageError(
      `csp suggest --from-inventory: no zone${wanted.length ? ` ${wanted.join(", ")}` : ""} with ` +
        `${SCRIPT_INVENTORY_PATH} in ${loaded?.path ?? "the configuration"}`,
    );
  }
  if (chosen.length > 1)
    throw new UsageError(
      `csp suggest --from-inventory: ${chosen.length} zones have a script inventory; pick one with --zone ID|NAME`,
    );
  const z = chosen[0]!;
  const { policy, notes } = inventoryPolicy(z.inventory, {
    description: opts.description ?? "Payment pages: authorized scripts only (PCI DSS 6.4.3)",
    action,
  });
  const comments = [
    `# The payment pages of zone ${printable(z.name ?? z.zone_id)} ` +
      `(${printable(z.inventory.pages.join(", "))}): script-src holds exactly the`,
    `# ${z.inventory.authorized.length} authorized script(s) of ${SCRIPT_INVENTORY_PATH}; with action allow ` +
      `every other script is blocked.`,
    ...notes.map((n) => `#   ${printable(n)}`),
  ];
  const block = `${comments.join("\n")}\n${safeYamlStringify([escapeTemplates(policy)], { lineWidth: 0 })}`;
  for (const n of notes.filter((n) => n.includes("(left out:")))
    io.stderr.write(`Warning: csp suggest --from-inventory made no source of ${printable(n)}\n`);
  if (opts.format === "yaml") {
    io.stdout.write(block);
    return;
  }
  io.stdout.write(
    `CSP allow policy for the pages in scope of zone ${printable(z.name ?? z.zone_id)}, from ` +
      `${printable(loaded!.path)}:\n\n  ${printable(policy.value)}\n\n` +
      `Paste under the zone's ${POLICIES_PATH} (try action log first if the pages may load other ` +
      `scripts):\n\n${printable(block, { keepNewlines: true })}`,
  );
}
