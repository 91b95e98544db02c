// `zoneform audit`: the scripts, connections and cookies Page Shield found on a zone's pages, read page by page,
// with malicious scripts and connections and insecure cookies as findings.
// Spec: docs/commands/audit.md.
import type { Command } from "commander";
import {
  MALICIOUS_SCORE_THRESHOLD,
  THREAT_SCORE_THRESHOLD,
  DEFAULT_STALE_DAYS,
  DEFAULT_PAGE_TIMEOUT_MS,
  MAX_PAGE_TIMEOUT_MS,
} from "../../inventory/index.js";
import {
  AUDIT_FORMATS,
  type AuditFormat,
  DEFAULT_AUDIT_LIMIT,
  DEFAULT_FAIL_ON,
  parseFailOn,
  runAudit,
  shouldFail,
  type FailOn,
  type ZoneInventory,
  DEFAULT_AUDIT_CATEGORY,
  type SarifAuditOptions,
} from "../../audit/index.js";
import { configPositions, categoryProblem } from "../../sarif/index.js";
import { VERSION } from "../command.js";
import type { LoadedInventories } from "../inventory-config.js";
import type { ZoneRef } from "../zone-ref.js";
import { loadInventories } from "../inventory-config.js";
import { addConfigOption, outOption } from "../options.js";
import type { CliIO } from "../io.js";
import { type CommandTable, collectList, commandFromTable, milliseconds, wholeNumber } from "../option-table.js";
import { openEvidenceDir, recordRun } from "../evidence-store.js";
import { configProvenance } from "../provenance.js";
import { refuseExisting, writeFileSafely } from "../../write-file.js";
import { join, resolve } from "node:path";
import { EXIT, UsageError } from "../../errors.js";
import type { Env } from "../../model/index.js";
import { printable } from "../../safe-text.js";
import { addReadCommandOptions, clientFromOptions, type ClientFlagValues } from "../client-options.js";
import type { CommandContext } from "../command.js";
import { cliClock } from "../now.js";
import { progressFor } from "../progress.js";
import { fitFor, outputWidth } from "../width.js";
import { parseZoneRefs, resolveZoneRefs } from "../zone-ref.js";
import { declaredPoliciesOf } from "../../sections/index.js";

interface AuditFlags extends ClientFlagValues {
  zone?: string[];
  quiet?: boolean;
  status?: string[];
  host?: string[];
  pageUrl?: string[];
  format: string;
  failOn: string;
  limit: string;
  maliciousBelow: string;
  threatBelow: string;
  config?: string;
  staleDays: string;
  sarifCategory?: string;
  pageTimeout: string;
  allowPrivateAddresses?: boolean;
  out?: string;
  force?: boolean;
  evidenceDir?: string;
}

/** `--page-timeout`: milliseconds, or with a unit (500ms, 10s, 1m). */
export function parsePageTimeout(value: string): number {
  const ms = milliseconds(value);
  if (!(ms >= 100) || ms > MAX_PAGE_TIMEOUT_MS)
    throw new UsageError(
      `--page-timeout must be a time from 100ms to 2m (plain numbers are milliseconds: 10000, or 10s), got ` +
        `"${printable(value)}"`,
    );
  return ms;
}

/** The help of --page-timeout (audit and inventory --headers). */
export const PAGE_TIMEOUT_HELP =
  "payment page headers: the whole fetch of one page (connection, same-origin redirects, headers) must " +
  `end within this; ms, or with a unit (10s); default ${DEFAULT_PAGE_TIMEOUT_MS / 1000}s`;

const ALLOW_PRIVATE_ADDRESSES_ENV = "ZONEFORM_ALLOW_PRIVATE_ADDRESSES";

/** The help of --allow-private-addresses (audit and inventory --headers). */
export const ALLOW_PRIVATE_ADDRESSES_HELP =
  "payment page headers: also fetch pages on addresses that are not public (loopback, private, " +
  "link-local…) and plain http:// to a loopback host, for a test's own server or the emulator (env " +
  `${ALLOW_PRIVATE_ADDRESSES_ENV}=1)`;

/** --allow-private-addresses, else ZONEFORM_ALLOW_PRIVATE_ADDRESSES: `1` or `true` allow. */
export function privateAddressesAllowed(flag: boolean | undefined, env: Env): boolean {
  if (flag === true) return true;
  const raw = env[ALLOW_PRIVATE_ADDRESSES_ENV]?.trim().toLowerCase();
  if (raw === undefined || raw === "" || raw === "0" || raw === "false") return false;
  if (raw === "1" || raw === "true") return true;
  throw new UsageError(
    `${ALLOW_PRIVATE_ADDRESSES_ENV} must be 1 (or true) to fetch payment pages on addresses that are not public, ` +
      `or 0 (or unset); got "${printable(env[ALLOW_PRIVATE_ADDRESSES_ENV] ?? "")}"`,
  );
}

const STATUSES = ["active", "infrequent", "inactive"];

/** `--malicious-below`, `--threat-below`: a whole score from 1 to 100. */
export function parseScoreThreshold(value: string | undefined, flag = "--malicious-below"): number {
  const n = wholeNumber(value, 1, 100);
  if (n === undefined) throw new UsageError(`${flag} must be a whole number from 1 to 100, got "${value}"`);
  return n;
}

const AUDIT: CommandTable = {
  name: "audit",
  description:
    "Audit the scripts, connections and cookies Page Shield found on a zone: malicious scripts and " +
    "connections, insecure cookies; with -c, each zone's script inventory and its payment pages' headers.",
  options: [
    {
      flags: "--status <list>",
      description:
        "scripts and connections with these statuses: active, infrequent, inactive (comma list; default active)",
      parse: collectList,
    },
    {
      flags: "--host <host>",
      description: "only items seen on this host; * at the start or end is a wildcard (repeatable)",
      parse: collectList,
    },
    {
      flags: "--page-url <url>",
      description: "only items seen on this page URL; * at the start or end is a wildcard (repeatable)",
      parse: collectList,
    },
    {
      flags: "--format <format>",
      description:
        `${AUDIT_FORMATS.join(" | ")} (json and csv list every finding as it is read; sarif is SARIF 2.1.0 ` +
        `for code scanning; html is one self-contained page to read or print)`,
      default: "text",
    },
    outOption("write the report to this file when the audit ends (never half a file), not stdout"),
    { flags: "--force", description: "overwrite the --out file if it exists" },
    {
      flags: "--evidence-dir <dir>",
      description:
        "also keep this run's JSON result in this directory, under a new dated name (read back by zoneform evidence)",
    },
    {
      flags: "--sarif-category <category>",
      description:
        "with --format sarif: the code scanning category (runAutomationDetails.id), " +
        `default ${DEFAULT_AUDIT_CATEGORY}`,
    },
    {
      flags: "--fail-on <what>",
      description:
        "exit 2 on (comma list): malicious (scripts and connections), lookalike (look-alike hosts), insecure " +
        "(cookies), unauthorized, unreviewed (draft entries), changed, stale (script inventory), headers " +
        "(changed or missing), unreachable " +
        "(payment pages not checked), policy (a policy's CSP not on a page), alerting (no Page Shield alert " +
        "notifies anyone of a zone; not in the default); any; none",
      default: DEFAULT_FAIL_ON.join(","),
    },
    { flags: "--page-timeout <ms>", description: PAGE_TIMEOUT_HELP, default: String(DEFAULT_PAGE_TIMEOUT_MS) },
    { flags: "--allow-private-addresses", description: ALLOW_PRIVATE_ADDRESSES_HELP },
    {
      flags: "--stale-days <n>",
      description: "script inventory: an authorization not seen on the pages in scope for this many days is stale",
      default: String(DEFAULT_STALE_DAYS),
    },
    {
      flags: "--limit <n>",
      description: "rows per kind in text and markdown output, worst first",
      default: String(DEFAULT_AUDIT_LIMIT),
    },
    {
      flags: "--malicious-below <score>",
      description: "a script whose js_integrity_score is below this is malicious (1-100; Cloudflare's threshold is 10)",
      default: String(MALICIOUS_SCORE_THRESHOLD),
    },
    {
      flags: "--threat-below <score>",
      description:
        "…or whose magecart_score, malware_score or cryptomining_score is below this (1-100; no documented " +
        "number, 10 like the integrity score)",
      default: String(THREAT_SCORE_THRESHOLD),
    },
  ],
};

export function register(program: Command, ctx: CommandContext): void {
  const cmd = commandFromTable(program, AUDIT);
  addConfigOption(cmd);
  addReadCommandOptions(cmd, { progress: true });
  cmd.action((opts: AuditFlags) => runAuditCommand(opts, ctx));
}

/** The flags checked, in the order their errors are reported, before any request. */
function auditInputs(opts: AuditFlags, io: CliIO, configured: LoadedInventories | undefined) {
  if ((!opts.zone || opts.zone.length === 0) && configured && configured.all.length === 0) {
    throw new UsageError(`audit needs --zone ID|NAME: ${configured.path} declares no zone`);
  }
  const zoneRefs =
    opts.zone?.length || !configured
      ? parseZoneRefs(opts.zone, "audit")
      : configured.all.map((z) => ({ id: z.zone_id }));
  const format = opts.format as AuditFormat;
  if (!AUDIT_FORMATS.includes(format))
    throw new UsageError(`--format ${opts.format}: expected one of ${AUDIT_FORMATS.join(", ")}`);
  const sarifCategory = parseSarifCategory(opts.sarifCategory, format);
  let failOn: FailOn[];
  try {
    failOn = parseFailOn(opts.failOn);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const staleDays = wholeNumber(opts.staleDays, 1, 3650);
  if (staleDays === undefined)
    throw new UsageError(`--stale-days must be a whole number from 1 to 3650, got "${opts.staleDays}"`);
  const limit = wholeNumber(opts.limit, 0, 10_000);
  if (limit === undefined) throw new UsageError(`--limit must be a whole number from 0 to 10000, got "${opts.limit}"`);
  const pageTimeoutMs = parsePageTimeout(String(opts.pageTimeout));
  const allowPrivateAddresses = privateAddressesAllowed(opts.allowPrivateAddresses, io.env);
  const maliciousBelow = parseScoreThreshold(opts.maliciousBelow);
  const threatBelow = parseScoreThreshold(opts.threatBelow, "--threat-below");
  const badStatus = (opts.status ?? []).filter((s) => !STATUSES.includes(s));
  if (badStatus.length > 0) throw new UsageError(`--status ${badStatus.join(", ")}: expected ${STATUSES.join(", ")}`);
  return {
    zoneRefs,
    format,
    sarifCategory,
    failOn,
    staleDays,
    limit,
    pageTimeoutMs,
    allowPrivateAddresses,
    maliciousBelow,
    threatBelow,
  };
}

/** Each configured zone's script inventory and declared policies, by zone id. */
function inventoriesOf(configured: LoadedInventories | undefined): Map<string, ZoneInventory> {
  return new Map<string, ZoneInventory>(
    (configured?.zones ?? []).map((z) => {
      const zone = configured?.all.find((d) => d.zone_id === z.zone_id);
      const policies = zone ? declaredPoliciesOf(zone) : undefined;
      return [
        z.zone_id,
        {
          inventory: z.inventory,
          ...(policies ? { policies } : {}),
          ...(z.name ? { zone_name: z.name } : {}),
          ...(z.source ? { source: z.source } : {}),
        },
      ];
    }),
  );
}

async function runAuditCommand(opts: AuditFlags, ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  // -c (or ./zoneform.yaml when present): without --zone, every zone of the file is audited (one report), each with
  // its account's token.
  const configured = await loadInventories(opts.config, io);
  const { zoneRefs, format, sarifCategory, failOn, ...checked } = auditInputs(opts, io, configured);
  const now = cliClock(io.env);
  const out = reportOutput(opts, io);
  const evidenceDir = opts.evidenceDir === undefined ? undefined : await openEvidenceDir(io.cwd, opts.evidenceDir);
  const record: string[] = [];
  const progress = progressFor(io, opts);
  const client = clientFromOptions(opts, io, undefined, progress, configured?.desired);
  try {
    const zones = await resolveZoneRefs(client, zoneRefs);
    // Each zone's account, as the file says it (its own account_id, else the file's): its Page Shield alerting is
    // shown, read with the account's token.
    const accounts = new Map<string, string>();
    for (const z of configured?.all ?? []) {
      const account = z.account_id ?? configured?.desired.account_id;
      if (account !== undefined) accounts.set(z.zone_id, account);
    }
    const zoneNames = zoneNamesOf(configured, zoneRefs, zones);
    const files = configured ? await configProvenance(configured.sources, io.cwd, io.env) : [];
    progress.begin("audit", "zones done", zones.length);
    const result = await runAudit(
      client,
      zones,
      {
        status: opts.status,
        hosts: opts.host,
        pageUrls: opts.pageUrl,
        format,
        ...(format === "text" && !out.path ? { width: outputWidth(io.stdout, io.env) } : {}),
        failOn,
        provenance: { zoneform_version: VERSION, files, zoneNames },
        ...checked,
        progress: opts.verbose ? (l) => progress.log(printable(l)) : undefined,
        onItem: (kind) => progress.count(`${kind}s`),
        onZoneDone: (done, total) => progress.update(done, total),
        inventories: inventoriesOf(configured),
        accounts,
        pageUserAgent: `zoneform/${VERSION} (payment page header check)`,
        now,
        ...(io.secrets ? { redact: (v) => io.secrets!.redactDeep(v) } : {}),
        ...(format === "sarif"
          ? { sarif: sarifOptions(configured, zoneNames, sarifCategory ?? DEFAULT_AUDIT_CATEGORY) }
          : {}),
        ...(evidenceDir ? { record: (text: string) => void record.push(text) } : {}),
      },
      (text) => {
        progress.clear();
        out.write(format === "text" && !out.path ? fitFor(io, io.stdout, text, { long: "break" }) : text);
      },
    );
    await out.close();
    if (evidenceDir) {
      const name = await recordRun(evidenceDir, JSON.parse(record.join("")) as Record<string, unknown>, now());
      io.stderr.write(`Recorded this run as ${printable(join(opts.evidenceDir!, name))}\n`);
    }
    if (shouldFail(result.totals, failOn)) ctx.setExit(EXIT.changes);
  } finally {
    progress.end();
    await client.close();
  }
}

/** `--sarif-category`: only with --format sarif. */
export function parseSarifCategory(value: string | undefined, format: string): string | undefined {
  if (value === undefined) return undefined;
  if (format !== "sarif") throw new UsageError("--sarif-category goes with --format sarif");
  const problem = categoryProblem(value);
  if (problem) throw new UsageError(`--sarif-category ${printable(value)}: ${problem}`);
  return value;
}

/**
 * Where the report goes: stdout as it is written, or with --out a file written whole when the audit ends (refused at
 * once when it exists without --force), so an audit that stops leaves no half a report.
 */
function reportOutput(
  opts: AuditFlags,
  io: CommandContext["io"],
): { path?: string; write: (text: string) => void; close: () => Promise<void> } {
  if (!opts.out) return { write: (text) => io.stdout.write(text), close: async () => undefined };
  const path = resolve(io.cwd, opts.out);
  const label = `--out ${opts.out}`;
  refuseExisting(path, { force: opts.force, label });
  const chunks: string[] = [];
  return {
    path,
    write: (text) => void chunks.push(text),
    close: () => writeFileSafely(path, chunks.join(""), { force: opts.force, label }),
  };
}

function sarifOptions(
  configured: LoadedInventories | undefined,
  names: ReadonlyMap<string, string>,
  category: string,
): SarifAuditOptions {
  return {
    version: VERSION,
    category,
    zoneNames: names,
    ...(configured ? { positions: configPositions(configured.sources) } : {}),
  };
}

function zoneNamesOf(
  configured: LoadedInventories | undefined,
  refs: readonly ZoneRef[],
  ids: readonly string[],
): Map<string, string> {
  const names = new Map<string, string>();
  // resolveZoneRefs keeps the refs' order (without repeats): a name given to --zone names its id.
  if (refs.length === ids.length)
    refs.forEach((r, i) => {
      if ("name" in r) names.set(ids[i]!, r.name);
    });
  for (const z of configured?.all ?? [])
    if (z.name !== undefined && !names.has(z.zone_id)) names.set(z.zone_id, z.name);
  return names;
}
