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
//
// With `--headers`, the draft also pins the payment pages' security headers as the pages send them now
// (`headers:`: draftPins), and the merge adds only the page URLs and the pins the file lacks: a header
// the file already pins keeps its value, and what differs is said (HeaderMerge). The merge splices what
// it adds into the file's text (yaml-edit.ts): every byte a person wrote, each pinned value included,
// stays as written.
import { Document, isMap, isScalar, isSeq, Pair, parseDocument, type Node, type YAMLMap, type YAMLSeq } from "yaml";
import { getOwn } from "../data-record.js";
import { safeYamlText } from "../safe-yaml.js";
import { UsageError } from "../errors.js";
import { printable } from "../safe-text.js";
import { escapeTemplates } from "../sections/export-context.js";
import { replaceTemplateTokens } from "../template.js";
import { authorizationFor, lookalikeScript, type SeenScript } from "./check.js";
import { hostReferences } from "./lookalike.js";
import type { AuthorizedScript } from "./types.js";

import { SCRIPT_INVENTORY_KEYS, SECURITY_HEADERS, TODO_JUSTIFICATION } from "../sections/page-shield/index.js";
import { addToYaml, YamlShapeError, type YamlAddition } from "./yaml-edit.js";

export { TODO_JUSTIFICATION, isTodoJustification } from "../sections/page-shield/index.js";

export interface DraftOptions {
  pages: string[];
  pinHashes?: boolean;
  /** Zone name or id for the header comment. */
  zone: string;
  now: Date;
  /** `--headers`: the payment pages fetched and what each sent; their security headers are pinned. */
  headers?: PageHeadersSeen;
}

/** The payment pages `--headers` fetched: each URL and the headers it sent (all of them answered). */
export interface PageHeadersSeen {
  pages: Array<{ url: string; headers: Record<string, string> }>;
}

/** A security header the pages do not all send alike: not pinned. */
export interface UnevenHeader {
  header: string;
  /** Each page's value (undefined: it does not send the header). */
  values: Array<{ url: string; value?: string }>;
}

/**
 * The pins of the security headers (SECURITY_HEADERS, in that order) that every page sends with one
 * value; those some pages send differently, or not at all, are `uneven` and left out (one pin holds
 * for every page).
 */
export function draftPins(seen: PageHeadersSeen): { pinned: Array<[string, string]>; uneven: UnevenHeader[] } {
  const pinned: Array<[string, string]> = [];
  const uneven: UnevenHeader[] = [];
  for (const header of SECURITY_HEADERS) {
    const values = seen.pages.map((p) => ({ url: p.url, value: getOwn(p.headers, header) }));
    if (values.every((v) => v.value === undefined)) continue;
    const first = values[0]!.value;
    if (first !== undefined && values.every((v) => v.value === first)) pinned.push([header, first]);
    else uneven.push({ header, values });
  }
  return { pinned, uneven };
}

/** One comment line on an uneven header (printable, cut). */
function unevenNote(u: UnevenHeader): string {
  const shown = u.values
    .map((v) => `${v.url} ${v.value === undefined ? "sends none" : `sends ${JSON.stringify(short(v.value))}`}`)
    .join("; ");
  return printable(`${u.header} not pinned, the pages differ: ${shown}`);
}

function short(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
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
  const drafted = opts.headers ? draftPins(opts.headers) : undefined;
  const doc = new Document({ script_inventory: { pages: escapeTemplates(opts.pages), authorized: [] as unknown[] } });
  if (opts.headers && drafted) {
    // What the pages sent becomes file text as data: every `${` escaped, as export writes it.
    const pinned = doc.createNode({}) as YAMLMap;
    for (const [name, value] of drafted.pinned)
      pinned.items.push(new Pair(doc.createNode(name), doc.createNode(escapeTemplates(value))));
    const headers = doc.createNode({ urls: escapeTemplates(opts.headers.pages.map((p) => p.url)) }) as YAMLMap;
    headers.items.push(new Pair(doc.createNode("pinned"), pinned));
    doc.setIn(["script_inventory", "headers"], headers);
  }
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
    ...(opts.headers && drafted
      ? [
          ` headers: the security headers ${printable(opts.headers.pages.map((p) => p.url).join(", "))} sent on ` +
            `${opts.now.toISOString().slice(0, 10)}, pinned (PCI DSS 11.6.1): review each value; audit then ` +
            "reports a changed or missing one.",
          ...drafted.uneven.map((u) => `   ${unevenNote(u)}`),
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
  /** `--headers`: what was added to `headers`, and what the file pins otherwise than the pages send. */
  headers?: HeaderMerge;
  /** Whether the additions were spliced into the text (else the whole file was written again). */
  spliced: boolean;
}

export interface HeaderMerge {
  urlsAdded: string[];
  pinsAdded: Array<[string, string]>;
  /** Pinned in the file with another value than the pages send now: the file's value is kept. */
  differing: Array<{ header: string; pinned: string; sent: string }>;
  /** Pinned in the file, sent by none of the pages fetched. */
  notSent: string[];
  /** Sent by the pages unevenly: not pinned. */
  uneven: UnevenHeader[];
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
  opts: {
    pages: string[];
    pinHashes?: boolean;
    zone: { id: string; name?: string };
    now: Date;
    headers?: PageHeadersSeen;
  },
): MergeResult {
  const { doc, path, where } = locateInventory(text, label, opts.zone);
  const at = (...keys: string[]) => [...path, ...keys];
  const list = (key: string) => (doc.hasIn(at(key)) ? doc.getIn(at(key), true) : undefined);
  const pages = list("pages");
  const seq = list("authorized");
  if ((pages !== undefined && !isSeq(pages)) || (seq !== undefined && !isSeq(seq)))
    throw new UsageError(`${label}: ${where}.pages and .authorized must be lists`);

  const known = new Set((pages?.items ?? []).map((p) => (isScalar(p) ? readBack(String(p.value)) : "")));
  const pagesAdded = opts.pages.filter((p) => !known.has(p));

  const existing = seq ? urlsOf(seq) : [];
  const { scripts: kept, leftOut } = withoutLookalikes(scripts, {
    pages: [...known, ...pagesAdded],
    authorized: existing,
  });
  const added: AuthorizedScript[] = [];
  const entries: Node[] = [];
  const note = ` TODO review: added by zoneform inventory --merge on ${opts.now.toISOString().slice(0, 10)};`;
  for (const { entry, seen } of draftEntries(kept, opts.pinHashes)) {
    if (authorizationFor(existing, entry.url)) continue;
    entries.push(entryNode(doc, entry, seen, note));
    added.push(entry);
  }
  const additions: YamlAddition[] = [
    { path: at("pages"), kind: "seq", items: pagesAdded.map((p) => escapeTemplates(p)) },
    { path: at("authorized"), kind: "seq", items: entries },
  ];
  const headers = opts.headers ? mergeHeaders(doc, at("headers"), opts.headers, label, where) : undefined;
  if (headers) additions.push(...headers.additions);
  let out: ReturnType<typeof addToYaml>;
  try {
    out = addToYaml(text, additions);
  } catch (err) {
    if (!(err instanceof YamlShapeError)) throw err;
    throw new UsageError(`${label}: ${err.message}, where the inventory goes (${where})`);
  }
  return {
    text: out.text,
    added,
    leftOut,
    pagesAdded,
    where,
    ...(headers ? { headers: headers.merge } : {}),
    spliced: out.spliced,
  };
}

/** The additions to the file's `headers` (URLs and pins it lacks) and what it pins otherwise. */
function mergeHeaders(
  doc: Document,
  at: Array<string | number>,
  seen: PageHeadersSeen,
  label: string,
  where: string,
): { additions: YamlAddition[]; merge: HeaderMerge } {
  const urls = doc.getIn([...at, "urls"], true);
  const pinned = doc.getIn([...at, "pinned"], true);
  if (
    (urls !== undefined && urls !== null && !isSeq(urls)) ||
    (pinned !== undefined && pinned !== null && !isMap(pinned))
  )
    throw new UsageError(`${label}: ${where}.headers.urls must be a list and .pinned a mapping`);
  const knownUrls = new Set((isSeq(urls) ? urls.items : []).map((u) => (isScalar(u) ? readBack(String(u.value)) : "")));
  // The file's pins, their values read back as the file means them (`$${` is `${`).
  const filePins = new Map<string, string>();
  if (isMap(pinned))
    for (const p of pinned.items) {
      const key = isScalar(p.key) ? String(p.key.value) : undefined;
      if (key !== undefined) filePins.set(key, isScalar(p.value) ? readBack(String(p.value.value ?? "")) : "");
    }
  const { pinned: drafted, uneven } = draftPins(seen);
  const urlsAdded = seen.pages.map((p) => p.url).filter((u, i, all) => !knownUrls.has(u) && all.indexOf(u) === i);
  const pinsAdded = drafted.filter(([name]) => !filePins.has(name));
  const differing = drafted.flatMap(([name, sent]) => {
    const mine = filePins.get(name);
    return mine !== undefined && mine !== sent ? [{ header: name, pinned: mine, sent }] : [];
  });
  const notSent = [...filePins.keys()].filter((name) => seen.pages.every((p) => getOwn(p.headers, name) === undefined));
  return {
    additions: [
      { path: [...at, "urls"], kind: "seq", items: urlsAdded.map((u) => escapeTemplates(u)) },
      {
        path: [...at, "pinned"],
        kind: "map",
        pairs: pinsAdded.map(([name, value]): [string, unknown] => [name, escapeTemplates(value)]),
      },
    ],
    merge: { urlsAdded, pinsAdded, differing, notSent, uneven },
  };
}
