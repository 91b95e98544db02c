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
  existingPages,
  type PageHeadersSeen,
} from "../../inventory/index.js";
import { isInsecurePageUrl, pagePatternProblem, pageUrlProblem } from "../../sections/index.js";
import { applyDefaults, MAX_CONFIG_FILE_BYTES } from "../../config/index.js";
import { RuntimeError, UsageError } from "../../errors.js";
import { describeReadProblem, FileReadError, readRegularFile } from "../../read-file.js";
import { printable } from "../../safe-text.js";
import { refuseExisting } from "../../write-file.js";
import { addReadCommandOptions, clientFromOptions } from "../client-options.js";
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
import { DEFAULT_INVENTORY_CATEGORY } from "../../sarif/index.js";
import { VERSION } from "../command.js";
import { type InventoryFlags, type SeenOnPages, writeDraft, writeMerge, writeSarif } from "./inventory-output.js";

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
