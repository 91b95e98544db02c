// The inventory as YAML for people to review: `draftInventory` writes the in-scope scripts Page Shield
// saw as a `script_inventory:` block (pages and authorized entries, each justification a marked TODO);
// `mergeInventory` adds to an existing file only the scripts no entry covers yet (and page patterns it
// lacks), through the yaml package's Document API so that every justification and comment stays as
// written. The file may be a zoneform file (the zone's page_shield.script_inventory) or a plain block.
//
// What Page Shield saw is text a skimmer chooses. It becomes file text as data: every `${` is written
// `$${` (export's escapeTemplates), so that loading the file gives the URL back instead of reading an
// environment variable; and a script whose URL looks like a trusted one (a look-alike host, user info,
// invisible characters: lookalikeScript) is never drafted as an entry a reviewer would only need to
// justify: the draft names it in its header comment as left out, the merge leaves the file without it,
// and both say so (leftOut).
import { Document, isMap, isScalar, isSeq, parseDocument, type Node, type YAMLMap, type YAMLSeq } from "yaml";
import { safeYamlText } from "../safe-yaml.js";
import { UsageError } from "../errors.js";
import { printable } from "../safe-text.js";
import { escapeTemplates } from "../sections/export-context.js";
import { replaceTemplateTokens } from "../template.js";
import { authorizationFor, lookalikeScript, type SeenScript } from "./check.js";
import { hostReferences } from "./lookalike.js";
import type { AuthorizedScript } from "./types.js";

import { SCRIPT_INVENTORY_KEYS, TODO_JUSTIFICATION } from "../sections/page-shield/index.js";

export { TODO_JUSTIFICATION, isTodoJustification } from "../sections/page-shield/index.js";

export interface DraftOptions {
  pages: string[];
  pinHashes?: boolean;
  /** Zone name or id for the header comment. */
  zone: string;
  now: Date;
}

/** One entry per script URL (the most recently seen one's hash), sorted by URL. */
export function draftEntries(
  scripts: readonly SeenScript[],
  pinHashes = false,
): Array<{ entry: AuthorizedScript; seen: SeenScript }> {
  const byUrl = new Map<string, SeenScript>();
  for (const s of scripts) {
    if (!s.url) continue;
    const prev = byUrl.get(s.url);
    if (!prev || Date.parse(s.last_seen_at ?? "") > Date.parse(prev.last_seen_at ?? "")) byUrl.set(s.url, s);
  }
  return [...byUrl.values()]
    .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))
    .map((seen) => ({
      entry: {
        url: seen.url,
        justification: TODO_JUSTIFICATION,
        ...(pinHashes && typeof seen.hash === "string" ? { hash: seen.hash } : {}),
      },
      seen,
    }));
}

function seenNote(s: SeenScript): string {
  const parts = [`seen${s.first_page_url ? ` on ${s.first_page_url}` : ""}`];
  if (s.first_seen_at) parts.push(`first ${s.first_seen_at}`);
  if (s.last_seen_at) parts.push(`last ${s.last_seen_at}`);
  if (s.status) parts.push(s.status);
  // A comment is one line: a URL or page from the internet must not start YAML of its own.
  return ` ${printable(parts.join(", "))}`;
}

/** A second comment line on a script `audit` finds malicious: it should not be authorized. */
function maliciousNote(s: SeenScript): string {
  return s.malicious?.length
    ? `\n ${printable(`MALICIOUS (${s.malicious.join("; ")}): remove it from the page, do not authorize it`)}`
    : "";
}

/** A script left out of a draft or merge: its URL looks like a trusted one. */
export interface LeftOutScript {
  url: string;
  reasons: string[];
}

/**
 * The scripts among `scripts` whose URL looks like a trusted one (lookalikeScript: against the
 * inventory's entries, its pages' hosts and the well-known hosts), and the others.
 */
export function withoutLookalikes(
  scripts: readonly SeenScript[],
  inventory: { pages: readonly string[]; authorized: readonly AuthorizedScript[] },
): { scripts: SeenScript[]; leftOut: LeftOutScript[] } {
  const refs = hostReferences({ authorized: inventory.authorized.map((a) => a.url), pages: inventory.pages });
  const kept: SeenScript[] = [];
  const leftOut = new Map<string, LeftOutScript>();
  for (const s of scripts) {
    const look = s.url ? lookalikeScript(inventory.authorized, s.url, refs) : undefined;
    if (!look) kept.push(s);
    else if (!leftOut.has(s.url))
      leftOut.set(s.url, {
        url: s.url,
        reasons: [...(look.looks_like ? [`looks like ${look.looks_like}`] : []), ...look.reasons],
      });
  }
  return { scripts: kept, leftOut: [...leftOut.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0)) };
}

/** The text as the file wrote it, read back: `$${` is `${` (a `${…}` reference stays as written). */
function readBack(text: string): string {
  return replaceTemplateTokens(text, (whole) => whole);
}

function entryNode(doc: Document, entry: AuthorizedScript, seen: SeenScript, note: string): Node {
  // Live text becomes file text: every `${` escaped, as export writes it.
  const node = doc.createNode(escapeTemplates(entry)) as YAMLMap;
  node.commentBefore = `${note}${seenNote(seen)}${maliciousNote(seen)}`;
  const justification = node.items.find((p) => isScalar(p.key) && p.key.value === "justification");
  if (justification && isScalar(justification.value)) {
    justification.value.type = "QUOTE_DOUBLE";
    justification.value.comment = " TODO: a person writes this; validate warns until then";
  }
  return node;
}

/**
 * The draft block as YAML text (`script_inventory:` with `pages` and `authorized`). Look-alikes are left
 * out and named in the header comment (withoutLookalikes).
 */
export function draftInventory(scripts: readonly SeenScript[], opts: DraftOptions): string {
  const { scripts: kept, leftOut } = withoutLookalikes(scripts, { pages: opts.pages, authorized: [] });
  const doc = new Document({ script_inventory: { pages: escapeTemplates(opts.pages), authorized: [] as unknown[] } });
  const seq = doc.getIn(["script_inventory", "authorized"], true) as YAMLSeq;
  for (const { entry, seen } of draftEntries(kept, opts.pinHashes))
    seq.items.push(entryNode(doc, entry, seen, " TODO review:"));
  const n = seq.items.length;
  doc.commentBefore = [
    ` Authorized scripts of the payment pages of zone ${printable(opts.zone)} (PCI DSS v4.0 6.4.3), drafted by`,
    ` zoneform inventory on ${opts.now.toISOString().slice(0, 10)} from what Page Shield saw on ` +
      `${printable(opts.pages.join(", "))}: ${n} script${n === 1 ? "" : "s"}.`,
    " Review each entry: write why the script is needed (justification), who owns it (owner), remove what",
    ` should not run on a payment page; then put this block under the zone's ${SCRIPT_INVENTORY_KEYS[0]}: ` +
      `in zoneform.yaml.`,
    ...(leftOut.length > 0
      ? [
          ` Left out, ${leftOut.length} look-alike${leftOut.length === 1 ? "" : "s"} of a trusted host (never ` +
            "authorize; remove from the page):",
          ...leftOut.map((l) => `   ${printable(`${l.url}: ${l.reasons.join("; ")}`)}`),
        ]
      : []),
  ].join("\n");
  return safeYamlText(doc, { lineWidth: 0 });
}

export interface MergeResult {
  text: string;
  added: AuthorizedScript[];
  /** Seen scripts not added: their URL looks like a trusted one. */
  leftOut: LeftOutScript[];
  pagesAdded: string[];
  /** Where in the file the entries went, e.g. `zones[0].page_shield.script_inventory`. */
  where: string;
}

/** The file's entries, their urls read back as the file means them (`$${` is `${`). */
function urlsOf(seq: YAMLSeq): AuthorizedScript[] {
  return seq.items.flatMap((item) => {
    if (!isMap(item)) return [];
    const url = item.get("url");
    return typeof url === "string"
      ? [{ url: readBack(url), justification: String(item.get("justification") ?? "") }]
      : [];
  });
}

function zoneIndex(zones: YAMLSeq, zone: { id: string; name?: string }): number {
  const i = zones.items.findIndex((z) => isMap(z) && String(z.get("zone_id") ?? "").toLowerCase() === zone.id);
  if (i >= 0 || zone.name === undefined) return i;
  return zones.items.findIndex((z) => isMap(z) && String(z.get("name") ?? "").toLowerCase() === zone.name);
}

/** Where the inventory sits in `text`: a zoneform file's zone, a `script_inventory:` block, or the top level. */
export function locateInventory(
  text: string,
  label: string,
  zone: { id: string; name?: string },
): { doc: Document; path: Array<string | number>; where: string } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new UsageError(`${label}: not YAML: ${doc.errors[0]!.message}`);
  if (isSeq(doc.get("zones", true))) {
    const i = zoneIndex(doc.get("zones", true) as YAMLSeq, zone);
    if (i < 0)
      throw new UsageError(
        `${label}: no zone ${zone.id}${zone.name ? ` (${zone.name})` : ""} in the file; add it under zones: first`,
      );
    return {
      doc,
      path: ["zones", i, ...SCRIPT_INVENTORY_KEYS],
      where: `zones[${i}].${SCRIPT_INVENTORY_KEYS.join(".")}`,
    };
  }
  if (isMap(doc.get("script_inventory", true))) return { doc, path: ["script_inventory"], where: "script_inventory" };
  if (isMap(doc.contents) || doc.contents === null) return { doc, path: [], where: "the top level" };
  throw new UsageError(
    `${label}: expected a zoneform file (zones:) or an inventory block (script_inventory:, or pages: and authorized:)`,
  );
}

/** The page patterns the inventory in `text` already has (none when it has no inventory yet). */
export function existingPages(text: string, label: string, zone: { id: string; name?: string }): string[] {
  const { doc, path } = locateInventory(text, label, zone);
  const pages = doc.getIn([...path, "pages"], true);
  return isSeq(pages)
    ? pages.items.flatMap((p) => (isScalar(p) && typeof p.value === "string" ? [readBack(p.value)] : []))
    : [];
}

/**
 * Adds the scripts no entry of `text` covers, and the page patterns it lacks. `zone` picks the zone of a
 * zoneform file (by id, else by name). Throws UsageError when the file is neither shape.
 */
export function mergeInventory(
  text: string,
  label: string,
  scripts: readonly SeenScript[],
  opts: { pages: string[]; pinHashes?: boolean; zone: { id: string; name?: string }; now: Date },
): MergeResult {
  const { doc, path, where } = locateInventory(text, label, opts.zone);
  const at = (key: string) => [...path, key];
  if (!doc.hasIn(at("pages"))) doc.setIn(at("pages"), doc.createNode([]));
  if (!doc.hasIn(at("authorized"))) doc.setIn(at("authorized"), doc.createNode([]));
  const pages = doc.getIn(at("pages"), true);
  const seq = doc.getIn(at("authorized"), true);
  if (!isSeq(pages) || !isSeq(seq)) throw new UsageError(`${label}: ${where}.pages and .authorized must be lists`);

  const known = new Set(pages.items.map((p) => (isScalar(p) ? readBack(String(p.value)) : "")));
  const pagesAdded = opts.pages.filter((p) => !known.has(p));
  for (const p of pagesAdded) pages.items.push(doc.createNode(escapeTemplates(p)));

  const existing = urlsOf(seq);
  const { scripts: kept, leftOut } = withoutLookalikes(scripts, {
    pages: [...known, ...pagesAdded],
    authorized: existing,
  });
  const added: AuthorizedScript[] = [];
  const note = ` TODO review: added by zoneform inventory --merge on ${opts.now.toISOString().slice(0, 10)};`;
  for (const { entry, seen } of draftEntries(kept, opts.pinHashes)) {
    if (authorizationFor(existing, entry.url)) continue;
    seq.items.push(entryNode(doc, entry, seen, note));
    added.push(entry);
  }
  return { text: safeYamlText(doc, { lineWidth: 0 }), added, leftOut, pagesAdded, where };
}
