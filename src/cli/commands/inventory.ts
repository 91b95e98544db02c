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
import type { CommandContext } from "../command.js";
import { cliClock } from "../now.js";
import { progressFor } from "../progress.js";
import { parseZoneRefs, resolveZoneRef } from "../zone-ref.js";
import {
  ALLOW_PRIVATE_ADDRESSES_HELP,
  collectList,
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

function collectEach(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

const FORMATS = ["yaml", "sarif"];

const DAY_MS = 86_400_000;

export function register(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command("inventory")
    .description(
      "Draft the authorized-script inventory of a zone's payment pages (PCI DSS 6.4.3) from what Page " +
        "Shield saw there.",
    )
    .option(
      "--pages <pattern>",
      "a payment page in scope, host/path with * at the start or end, e.g. example.com/checkout* " +
        "(repeatable, or a comma list)",
      collectList,
    )
    .addOption(outOption("write the block to this file (refused if it exists, unless --force)"))
    .option(
      "--merge <file>",
      "add only what is new to this inventory (a zoneform file or an inventory block), in place or to " +
        "--out; its justifications and comments are kept",
    )
    .option(
      "--pin-hashes",
      "pin each new entry to the hash Page Shield last fetched (a changed script is then reported)",
    )
    .option(
      "--into-defaults",
      "with --merge: add to a list of the inventory that the zone takes from FILE's defaults: and other " +
        "zones take too (for all of them; else refused)",
    )
    .option("--force", "overwrite the --out file")
    .option(
      "--format <format>",
      "yaml (the draft, or the merge) | sarif (instead: the findings against --merge FILE's inventory, or " +
        "none, as SARIF 2.1.0; nothing is drafted or merged)",
      "yaml",
    )
    .option(
      "--sarif-category <category>",
      `with --format sarif: the code scanning category (runAutomationDetails.id), default ` +
        `${DEFAULT_INVENTORY_CATEGORY}`,
    )
    .option(
      "--headers <url>",
      "a payment page to fetch (absolute https:// URL; repeatable): pin the security headers it sends now " +
        "under headers: (with --merge, only what FILE does not pin yet)",
      collectEach,
    )
    .option(
      "--scripts",
      "with --headers: draft the scripts seen too (as drafts a person reviews); --headers alone drafts only headers",
    )
    .option(
      "--recent <days>",
      `mark a script first seen, or whose version was fetched, within this many days NEW or CHANGED in the draft ` +
        `(default ${DEFAULT_RECENT_DAYS})`,
    )
    .option("--page-timeout <ms>", PAGE_TIMEOUT_HELP)
    .option("--allow-private-addresses", ALLOW_PRIVATE_ADDRESSES_HELP);
  addReadCommandOptions(cmd, { single: true, progress: true });
  cmd.action(async (opts: InventoryFlags) => {
    const { io } = ctx;
    const [zoneRef] = parseZoneRefs(opts.zone, "inventory", { single: "an inventory belongs to one zone" });
    const mergeText =
      opts.merge === undefined ? undefined : await readMergeFile(resolve(io.cwd, opts.merge), opts.merge);
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
    if (opts.intoDefaults && (mergeText === undefined || sarif))
      throw new UsageError(
        "--into-defaults adds to the defaults: of --merge FILE: give --merge FILE, without --format sarif",
      );
    if (sarif && opts.pinHashes)
      throw new UsageError("--pin-hashes pins the entries of a draft: --format sarif drafts nothing");
    const headerUrls = opts.headers ?? [];
    if (sarif && headerUrls.length > 0)
      throw new UsageError("--headers pins the headers of a draft: --format sarif drafts nothing");
    for (const u of headerUrls) {
      const problem =
        pageUrlProblem(u) ?? (isInsecurePageUrl(u) ? "a payment page is fetched over https only" : undefined);
      if (problem) throw new UsageError(`--headers ${printable(u)}: ${problem}`);
    }
    if (opts.pageTimeout !== undefined && headerUrls.length === 0)
      throw new UsageError("--page-timeout bounds the fetch of each --headers page: give --headers URL");
    const pageTimeoutMs = opts.pageTimeout === undefined ? undefined : parsePageTimeout(opts.pageTimeout);
    if (opts.scripts && headerUrls.length === 0)
      throw new UsageError(
        "--scripts adds the scripts to a --headers draft: without --headers they are drafted anyway",
      );
    const recentDays = opts.recent === undefined ? DEFAULT_RECENT_DAYS : parseRecent(opts.recent);
    // --headers drafts headers.
    const withScripts = headerUrls.length === 0 || opts.scripts === true;
    const allowPrivateAddresses = privateAddressesAllowed(opts.allowPrivateAddresses, io.env);
    const clock = cliClock(io.env);
    const outPath = opts.out === undefined ? undefined : resolve(io.cwd, opts.out);
    if (outPath) refuseExisting(outPath, { force: opts.force, label: `--out ${opts.out}` });

    const progress = progressFor(io, opts);
    const client = clientFromOptions(opts, io, undefined, progress);
    try {
      const zoneId = await resolveZoneRef(client, zoneRef!);
      const zone = { id: zoneId, ...("name" in zoneRef! ? { name: zoneRef.name } : {}) };
      // Merging: the file's pages in scope and the new ones given.
      const existing =
        mergeText === undefined ? [] : existingPages(mergeText, `--merge ${opts.merge}`, zone, applyDefaults);
      const pages = [...new Set([...existing, ...given])];
      if (pages.length === 0)
        throw new UsageError(
          `inventory needs --pages PATTERN: --merge ${opts.merge} has no pages in scope for this zone yet`,
        );
      progress.begin("inventory", "zones done", 1);
      const now = clock();
      // Scripts seen within the audit's default window: what `audit` would report as unauthorized.
      const since = now.getTime() - DEFAULT_STALE_DAYS * DAY_MS;
      const listed = withScripts || sarif ? await listInScopeScripts(client, zoneId, pages) : [];
      const scripts = withScripts ? listed.filter((s) => !s.last_seen_at || !(Date.parse(s.last_seen_at) < since)) : [];
      const headers =
        headerUrls.length > 0 ? await fetchPages(headerUrls, pageTimeoutMs, allowPrivateAddresses) : undefined;
      progress.end();
      if (sarif) {
        const merge =
          opts.merge === undefined || mergeText === undefined
            ? undefined
            : {
                file: displayPath(resolve(io.cwd, opts.merge), io.cwd),
                text: mergeText,
                label: `--merge ${opts.merge}`,
              };
        const { log } = inventorySarif({
          zone,
          pages,
          scripts: listed,
          now,
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
        return;
      }
      if (mergeText !== undefined) {
        const label = `--merge ${opts.merge}`;
        const merged = mergeInventory(mergeText, label, scripts, {
          pages,
          pinHashes: opts.pinHashes,
          recentDays,
          zone,
          now,
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
        if (withScripts)
          io.stderr.write(
            `inventory: ${merged.added.length} new ` +
              `script${merged.added.length === 1 ? "" : "s"}${
                merged.pagesAdded.length ? ` and ${merged.pagesAdded.length} page pattern(s)` : ""
              } added to ${printable(merged.where)} of ${printable(opts.out ?? opts.merge!)} ` +
              `(${scripts.length} seen on the pages in scope); review each TODO justification\n${added}`,
          );
        if (merged.headers) io.stderr.write(headerMergeReport(merged.headers, opts.out ?? opts.merge!));
        return;
      }
      const text = draftInventory(scripts, {
        pages,
        pinHashes: opts.pinHashes,
        recentDays,
        zone: zone.name ?? zoneId,
        now,
        ...(headers ? { headers } : {}),
      });
      io.stderr.write(leftOutWarning(withoutLookalikes(scripts, { pages, authorized: [] }).leftOut));
      if (outPath) {
        await writeFileSafely(outPath, text, { force: opts.force, label: `--out ${opts.out}` });
        io.stderr.write(
          `inventory: ${scripts.length} script(s) seen on the pages in scope written to ` +
            `${printable(opts.out!)}; review each TODO justification\n`,
        );
      } else {
        io.stdout.write(text);
      }
    } finally {
      progress.end();
      await client.close();
    }
  });
}

function parseRecent(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > 3650)
    throw new UsageError(`--recent ${printable(value)}: expected a whole number of days from 1 to 3650`);
  return n;
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
