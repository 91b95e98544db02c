// `zoneform inventory`: drafts the authorized-script inventory of a zone's payment pages (PCI DSS v4.0 6.4.3) from
// what Page Shield saw there: one list call with the `page_url` filter, no script detail.
// Spec: docs/commands/inventory.md.
import type { Command } from "commander";
import { resolve } from "node:path";
import {
  DEFAULT_RECENT_DAYS,
  DEFAULT_STALE_DAYS,
  PageFetcher,
  type PageFailure,
  listInScopeScripts,
  draftInventory,
  existingPages,
  mergeInventory,
  withoutLookalikes,
  type HeaderMerge,
  type LeftOutScript,
  type PageHeadersSeen,
} from "../../inventory/index.js";
import { isInsecurePageUrl, pagePatternProblem, pageUrlProblem } from "../../sections/index.js";
import { applyDefaults, MAX_CONFIG_FILE_BYTES, displayPath } from "../../config/index.js";
import { RuntimeError, UsageError } from "../../errors.js";
import { describeReadProblem, FileReadError, readRegularFile } from "../../read-file.js";
import { printable } from "../../safe-text.js";
import { refuseExisting, writeFileSafely } from "../../write-file.js";
import { addReadCommandOptions, clientFromOptions, type ClientFlagValues } from "../client-options.js";
import { outOption } from "../options.js";
import type { CliIO } from "../io.js";
import {
  type CommandTable,
  collectEach,
  collectList,
  commandFromTable,
  refuseUsage,
  wholeNumber,
} from "../option-table.js";
import type { CommandContext } from "../command.js";
import { cliClock } from "../now.js";
import { progressFor } from "../progress.js";
import { parseZoneRefs, resolveZoneRef } from "../zone-ref.js";
import {
  ALLOW_PRIVATE_ADDRESSES_HELP,
  PAGE_TIMEOUT_HELP,
  parsePageTimeout,
  parseSarifCategory,
  privateAddressesAllowed,
} from "./audit.js";
import { DEFAULT_INVENTORY_CATEGORY, inventorySarif, sarifText } from "../../sarif/index.js";
import { VERSION } from "../command.js";

interface InventoryFlags extends ClientFlagValues {
  zone?: string[];
  quiet?: boolean;
  pages?: string[];
  out?: string;
  merge?: string;
  pinHashes?: boolean;
  force?: boolean;
  intoDefaults?: boolean;
  format: string;
  sarifCategory?: string;
  headers?: string[];
  scripts?: boolean;
  recent?: string;
  pageTimeout?: string;
  allowPrivateAddresses?: boolean;
}

const FORMATS = ["yaml", "sarif"];

const DAY_MS = 86_400_000;

const INVENTORY: CommandTable = {
  name: "inventory",
  description:
    "Draft the authorized-script inventory of a zone's payment pages (PCI DSS 6.4.3) from what Page " +
    "Shield saw there.",
  options: [
    {
      flags: "--pages <pattern>",
      description:
        "a payment page in scope, host/path with * at the start or end, e.g. example.com/checkout* " +
        "(repeatable, or a comma list)",
      parse: collectList,
    },
    outOption("write the block to this file (refused if it exists, unless --force)"),
    {
      flags: "--merge <file>",
      description:
        "add only what is new to this inventory (a zoneform file or an inventory block), in place or to " +
        "--out; its justifications and comments are kept",
    },
    {
      flags: "--pin-hashes",
      description: "pin each new entry to the hash Page Shield last fetched (a changed script is then reported)",
    },
    {
      flags: "--into-defaults",
      description:
        "with --merge: add to a list of the inventory that the zone takes from FILE's defaults: and other " +
        "zones take too (for all of them; else refused)",
    },
    { flags: "--force", description: "overwrite the --out file" },
    {
      flags: "--format <format>",
      description:
        "yaml (the draft, or the merge) | sarif (instead: the findings against --merge FILE's inventory, or " +
        "none, as SARIF 2.1.0; nothing is drafted or merged)",
      default: "yaml",
    },
    {
      flags: "--sarif-category <category>",
      description:
        "with --format sarif: the code scanning category (runAutomationDetails.id), default " +
        DEFAULT_INVENTORY_CATEGORY,
    },
    {
      flags: "--headers <url>",
      description:
        "a payment page to fetch (absolute https:// URL; repeatable): pin the security headers it sends now " +
        "under headers: (with --merge, only what FILE does not pin yet)",
      parse: collectEach,
    },
    {
      flags: "--scripts",
      description:
        "with --headers: draft the scripts seen too (as drafts a person reviews); --headers alone drafts only headers",
    },
    {
      flags: "--recent <days>",
      description:
        "mark a script first seen, or whose version was fetched, within this many days NEW or CHANGED in the draft " +
        `(default ${DEFAULT_RECENT_DAYS})`,
    },
    { flags: "--page-timeout <ms>", description: PAGE_TIMEOUT_HELP },
    { flags: "--allow-private-addresses", description: ALLOW_PRIVATE_ADDRESSES_HELP },
  ],
};

export function register(program: Command, ctx: CommandContext): void {
  const cmd = commandFromTable(program, INVENTORY);
  addReadCommandOptions(cmd, { single: true, progress: true });
  cmd.action((opts: InventoryFlags) => runInventory(opts, ctx));
}

type InventoryInputs = Awaited<ReturnType<typeof inventoryInputs>>;

/** The flags checked, in the order their errors are reported, before any request. */
async function inventoryInputs(opts: InventoryFlags, io: CliIO) {
  const [zoneRef] = parseZoneRefs(opts.zone, "inventory", { single: "an inventory belongs to one zone" });
  const mergeText = opts.merge === undefined ? undefined : await readMergeFile(resolve(io.cwd, opts.merge), opts.merge);
  const given = opts.pages ?? [];
  if (given.length === 0 && mergeText === undefined)
    throw new UsageError(
      `inventory needs --pages PATTERN: the payment pages in scope, e.g. --pages "example.com/checkout*"`,
    );
  for (const p of given) {
    const problem = pagePatternProblem(p);
    if (problem) throw new UsageError(`--pages ${printable(p)}: ${problem}`);
  }
  if (!FORMATS.includes(opts.format))
    throw new UsageError(`--format ${printable(opts.format)}: expected one of ${FORMATS.join(", ")}`);
  const sarif = opts.format === "sarif";
  const sarifCategory = parseSarifCategory(opts.sarifCategory, opts.format);
  const headerUrls = opts.headers ?? [];
  refuseUsage([
    [
      opts.intoDefaults && (mergeText === undefined || sarif),
      "--into-defaults adds to the defaults: of --merge FILE: give --merge FILE, without --format sarif",
    ],
    [sarif && opts.pinHashes, "--pin-hashes pins the entries of a draft: --format sarif drafts nothing"],
    [sarif && headerUrls.length > 0, "--headers pins the headers of a draft: --format sarif drafts nothing"],
  ]);
  for (const u of headerUrls) {
    const problem =
      pageUrlProblem(u) ?? (isInsecurePageUrl(u) ? "a payment page is fetched over https only" : undefined);
    if (problem) throw new UsageError(`--headers ${printable(u)}: ${problem}`);
  }
  refuseUsage([
    [
      opts.pageTimeout !== undefined && headerUrls.length === 0,
      "--page-timeout bounds the fetch of each --headers page: give --headers URL",
    ],
  ]);
  const pageTimeoutMs = opts.pageTimeout === undefined ? undefined : parsePageTimeout(opts.pageTimeout);
  refuseUsage([
    [
      opts.scripts && headerUrls.length === 0,
      "--scripts adds the scripts to a --headers draft: without --headers they are drafted anyway",
    ],
  ]);
  const recentDays = opts.recent === undefined ? DEFAULT_RECENT_DAYS : parseRecent(opts.recent);
  // --headers drafts headers; it touches no script entry unless asked (--scripts).
  const withScripts = headerUrls.length === 0 || opts.scripts === true;
  const allowPrivateAddresses = privateAddressesAllowed(opts.allowPrivateAddresses, io.env);
  const clock = cliClock(io.env);
  const outPath = opts.out === undefined ? undefined : resolve(io.cwd, opts.out);
  if (outPath) refuseExisting(outPath, { force: opts.force, label: `--out ${opts.out}` });
  return {
    zoneRef: zoneRef!,
    mergeText,
    given,
    sarif,
    sarifCategory,
    headerUrls,
    pageTimeoutMs,
    recentDays,
    withScripts,
    allowPrivateAddresses,
    clock,
    outPath,
  };
}

async function runInventory(opts: InventoryFlags, ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  const input = await inventoryInputs(opts, io);
  const { zoneRef, mergeText, withScripts, sarif } = input;
  const progress = progressFor(io, opts);
  const client = clientFromOptions(opts, io, undefined, progress);
  try {
    const zoneId = await resolveZoneRef(client, zoneRef);
    const zone = { id: zoneId, ...("name" in zoneRef ? { name: zoneRef.name } : {}) };
    // Merging: the file's pages in scope and the new ones given.
    const existing =
      mergeText === undefined ? [] : existingPages(mergeText, `--merge ${opts.merge}`, zone, applyDefaults);
    const pages = [...new Set([...existing, ...input.given])];
    if (pages.length === 0)
      throw new UsageError(
        `inventory needs --pages PATTERN: --merge ${opts.merge} has no pages in scope for this zone yet`,
      );
    progress.begin("inventory", "zones done", 1);
    const now = input.clock();
    // Scripts seen within the audit's default window: what `audit` would report as unauthorized.
    const since = now.getTime() - DEFAULT_STALE_DAYS * DAY_MS;
    const listed = withScripts || sarif ? await listInScopeScripts(client, zoneId, pages) : [];
    const scripts = withScripts ? listed.filter((s) => !s.last_seen_at || !(Date.parse(s.last_seen_at) < since)) : [];
    const headers =
      input.headerUrls.length > 0
        ? await fetchPages(input.headerUrls, input.pageTimeoutMs, input.allowPrivateAddresses)
        : undefined;
    progress.end();
    const seen: SeenOnPages = { zone, pages, listed, scripts, now, ...(headers ? { headers } : {}) };
    if (sarif) await writeSarif(opts, io, input, seen);
    else if (mergeText !== undefined) await writeMerge(opts, io, input, seen, mergeText);
    else await writeDraft(opts, io, input, seen);
  } finally {
    progress.end();
    await client.close();
  }
}

interface SeenOnPages {
  zone: { id: string; name?: string };
  pages: string[];
  listed: Parameters<typeof inventorySarif>[0]["scripts"];
  scripts: Parameters<typeof draftInventory>[0];
  now: Date;
  headers?: PageHeadersSeen;
}

async function writeSarif(opts: InventoryFlags, io: CliIO, input: InventoryInputs, seen: SeenOnPages): Promise<void> {
  const { outPath, mergeText, sarifCategory } = input;
  const merge =
    opts.merge === undefined || mergeText === undefined
      ? undefined
      : { file: displayPath(resolve(io.cwd, opts.merge), io.cwd), text: mergeText, label: `--merge ${opts.merge}` };
  const { log } = inventorySarif({
    zone: seen.zone,
    pages: seen.pages,
    scripts: seen.listed,
    now: seen.now,
    version: VERSION,
    ...(merge ? { merge } : {}),
    ...(sarifCategory ? { category: sarifCategory } : {}),
  });
  const text = sarifText(log);
  if (outPath)
    await writeFileSafely(outPath, io.secrets ? io.secrets.redact(text) : text, {
      force: opts.force,
      label: `--out ${opts.out}`,
    });
  else io.stdout.write(text);
}

async function writeMerge(
  opts: InventoryFlags,
  io: CliIO,
  input: InventoryInputs,
  seen: SeenOnPages,
  mergeText: string,
): Promise<void> {
  const { outPath } = input;
  const { scripts, headers } = seen;
  const label = `--merge ${opts.merge}`;
  const merged = mergeInventory(mergeText, label, scripts, {
    pages: seen.pages,
    pinHashes: opts.pinHashes,
    recentDays: input.recentDays,
    zone: seen.zone,
    now: seen.now,
    ...(headers ? { headers } : {}),
    defaults: applyDefaults,
    intoDefaults: opts.intoDefaults === true,
  });
  const target = outPath ?? resolve(io.cwd, opts.merge!);
  const headersAdded = (merged.headers?.urlsAdded.length ?? 0) + (merged.headers?.pinsAdded.length ?? 0);
  // Nothing new (or only look-alikes, left out): FILE is not rewritten.
  if (outPath !== undefined || merged.added.length > 0 || merged.pagesAdded.length > 0 || headersAdded > 0)
    await writeFileSafely(target, merged.text, {
      force: outPath === undefined || opts.force,
      label: outPath ? `--out ${opts.out}` : label,
    });
  io.stderr.write(leftOutWarning(merged.leftOut));
  const added = merged.added.map((a) => `  + ${printable(a.url)}\n`).join("");
  if (input.withScripts)
    io.stderr.write(
      `inventory: ${merged.added.length} new ` +
        `script${merged.added.length === 1 ? "" : "s"}${
          merged.pagesAdded.length ? ` and ${merged.pagesAdded.length} page pattern(s)` : ""
        } added to ${printable(merged.where)} of ${printable(opts.out ?? opts.merge!)} ` +
        `(${scripts.length} seen on the pages in scope); review each TODO justification\n${added}`,
    );
  if (merged.headers) io.stderr.write(headerMergeReport(merged.headers, opts.out ?? opts.merge!));
}

async function writeDraft(opts: InventoryFlags, io: CliIO, input: InventoryInputs, seen: SeenOnPages): Promise<void> {
  const { scripts, pages, zone, headers } = seen;
  const text = draftInventory(scripts, {
    pages,
    pinHashes: opts.pinHashes,
    recentDays: input.recentDays,
    zone: zone.name ?? zone.id,
    now: seen.now,
    ...(headers ? { headers } : {}),
  });
  io.stderr.write(leftOutWarning(withoutLookalikes(scripts, { pages, authorized: [] }).leftOut));
  if (input.outPath) {
    await writeFileSafely(input.outPath, text, { force: opts.force, label: `--out ${opts.out}` });
    io.stderr.write(
      `inventory: ${scripts.length} script(s) seen on the pages in scope written to ` +
        `${printable(opts.out!)}; review each TODO justification\n`,
    );
  } else {
    io.stdout.write(text);
  }
}

function parseRecent(value: string): number {
  const days = wholeNumber(value, 1, 3650);
  if (days === undefined)
    throw new UsageError(`--recent ${printable(value)}: expected a whole number of days from 1 to 3650`);
  return days;
}

async function fetchPages(
  urls: readonly string[],
  timeoutMs: number | undefined,
  allowPrivateAddresses: boolean,
): Promise<PageHeadersSeen> {
  const fetcher = new PageFetcher({
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    allowPrivateAddresses,
    userAgent: `zoneform/${VERSION} (payment page header check)`,
  });
  try {
    const answers = await fetcher.fetchAll(urls);
    const failed = [...answers.values()].filter((a): a is PageFailure => !a.ok);
    if (failed.length > 0)
      throw new RuntimeError(
        `--headers: ${failed.map((f) => `${printable(f.url)}: ${printable(f.reason)}`).join("; ")}; nothing was ` +
          "written (pins are drafted from every page given)",
      );
    return { pages: [...answers.values()].flatMap((a) => (a.ok ? [{ url: a.url, headers: a.headers }] : [])) };
  } finally {
    await fetcher.close();
  }
}

function cutValue(v: string): string {
  return printable(JSON.stringify(v.length > 200 ? `${v.slice(0, 199)}…` : v));
}

/** What a --headers merge added to `headers`, and each pin FILE keeps although the pages send otherwise. */
function headerMergeReport(m: HeaderMerge, file: string): string {
  const lines = [
    `inventory: ${m.urlsAdded.length} page URL(s) and ${m.pinsAdded.length} pinned header(s) added to headers of ` +
      `${printable(file)}`,
    ...m.urlsAdded.map((u) => `  + ${printable(u)}`),
    ...m.pinsAdded.map(([name, value]) => `  + ${printable(name)}: ${cutValue(value)}`),
    ...m.differing.map(
      (d) =>
        `  kept ${printable(d.header)}: pinned ${cutValue(d.pinned)}; the pages send ${cutValue(d.sent)} ` +
        "(review: pin the new value by hand if it is authorized)",
    ),
    ...m.notSent.map((name) => `  kept ${printable(name)}: pinned, but none of the pages sends it now`),
    ...m.uneven.map(
      (u) =>
        `  not pinned ${printable(u.header)}: the pages differ (${u.values
          .map((v) => `${printable(v.url)} ${v.value === undefined ? "sends none" : `sends ${cutValue(v.value)}`}`)
          .join("; ")})`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

function leftOutWarning(leftOut: readonly LeftOutScript[]): string {
  return leftOut
    .map(
      (l) =>
        `Warning: left out ${printable(l.url)}: ${printable(l.reasons.join("; "))}; never authorize it, remove ` +
        "it from the page\n",
    )
    .join("");
}

/** The --merge file: a regular file of at most the size of a configuration file (a FIFO is refused, never opened). */
async function readMergeFile(path: string, label: string): Promise<string> {
  try {
    return (await readRegularFile(path, MAX_CONFIG_FILE_BYTES)).toString("utf8");
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    const message = `--merge ${label}: ${describeReadProblem(err.problem, MAX_CONFIG_FILE_BYTES)}`;
    throw err.problem.kind === "not-regular" || err.problem.kind === "too-large"
      ? new UsageError(message)
      : new RuntimeError(message);
  }
}
