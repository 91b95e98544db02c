// What \`zoneform inventory\` writes: the SARIF findings, the merge into --merge FILE, or the draft.
// Spec: docs/commands/inventory.md.
import { resolve } from "node:path";
import { applyDefaults, displayPath } from "../../config/index.js";
import {
  draftInventory,
  type HeaderMerge,
  type LeftOutScript,
  mergeInventory,
  type PageHeadersSeen,
  withoutLookalikes,
} from "../../inventory/index.js";
import { printable } from "../../safe-text.js";
import { inventorySarif, sarifText } from "../../sarif/index.js";
import { writeFileSafely } from "../../write-file.js";
import type { ClientFlagValues } from "../client-options.js";
import { VERSION } from "../command.js";
import type { CliIO } from "../io.js";

export interface InventoryFlags extends ClientFlagValues {
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

/** What the flags decided, as the writers need it. */
interface InventoryInputs {
  outPath?: string;
  mergeText?: string;
  sarifCategory?: string;
  recentDays: number;
  withScripts: boolean;
}

export interface SeenOnPages {
  zone: { id: string; name?: string };
  pages: string[];
  listed: Parameters<typeof inventorySarif>[0]["scripts"];
  scripts: Parameters<typeof draftInventory>[0];
  now: Date;
  headers?: PageHeadersSeen;
}

export async function writeSarif(
  opts: InventoryFlags,
  io: CliIO,
  input: InventoryInputs,
  seen: SeenOnPages,
): Promise<void> {
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

export async function writeMerge(
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

export async function writeDraft(
  opts: InventoryFlags,
  io: CliIO,
  input: InventoryInputs,
  seen: SeenOnPages,
): Promise<void> {
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
