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
import { fitLine } from "../text-width.js";
import { escapeTemplates, SCRIPT_INVENTORY_KEYS, SECURITY_HEADERS, TODO_JUSTIFICATION } from "../sections/index.js";
import { replaceTemplateTokens } from "../template.js";
import { authorizationFor, lookalikeScript, type SeenScript } from "./check.js";
import { hostReferences } from "./lookalike.js";
import type { AuthorizedScript } from "./types.js";
import { addToYaml, YamlShapeError, type YamlAddition } from "./yaml-edit.js";

export { TODO_JUSTIFICATION } from "../sections/index.js";

/** What a draft entry's comment says of when the script, or its version, appeared. */
interface Recency {
  now: Date;
  /** A script first seen, or its version fetched, within this many days is marked NEW or CHANGED. */
  days: number;
}

/** The default window of `--recent`: what is newer than this is marked in a draft. */
export const DEFAULT_RECENT_DAYS = 30;

export interface DraftOptions {
  pages: string[];
  pinHashes?: boolean;
  /** The window NEW and CHANGED marks use (default DEFAULT_RECENT_DAYS). */
  recentDays?: number;
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

/**
 * Comment lines within 80 columns: the header's at the top of a draft (`#` and 79), an entry's with room
 * for the indent of a zone file's `authorized:` items (`zones[i].page_shield.script_inventory`). A long
 * line is carried on lines indented under it, a long URL broken after a `/` (a comment loses nothing).
 */
const HEADER_COMMENT_WIDTH = 79;
const ENTRY_COMMENT_WIDTH = 68;

function wrapComment(text: string, width: number): string {
  return text
    .split("\n")
    .flatMap((l) => fitLine(l, width, { long: "break" }))
    .join("\n");
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
function draftEntries(
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

const DAY = 86_400_000;

/** Whole days from `at` to `now`, or undefined for a time that is not one. */
function daysAgo(at: string | null | undefined, now: Date): number | undefined {
  const t = at ? Date.parse(at) : Number.NaN;
  return Number.isNaN(t) ? undefined : Math.floor((now.getTime() - t) / DAY);
}

/**
 * Lines saying what is recent: a script first seen within the window (NEW), a version fetched within it
 * after the script was first seen (CHANGED), and, when pinned, which version the hash is (never silently).
 */
function recencyNote(s: SeenScript, r: Recency, pinned: boolean): string {
  const lines: string[] = [];
  const first = daysAgo(s.first_seen_at, r.now);
  const fetched = daysAgo(s.fetched_at, r.now);
  if (first !== undefined && first <= r.days)
    lines.push(
      `NEW: first seen ${s.first_seen_at} (${first} days ago): make sure it is your script before authorizing it`,
    );
  else if (fetched !== undefined && fetched <= r.days)
    lines.push(
      `CHANGED: its current version was fetched on ${s.fetched_at} (${fetched} days ago), after it was first seen: ` +
        "review that version before authorizing it",
    );
  if (pinned && typeof s.hash === "string")
    lines.push(`the hash pinned is the version Page Shield fetched${s.fetched_at ? ` on ${s.fetched_at}` : ""}`);
  return lines.map((l) => `\n ${printable(l)}`).join("");
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

function entryNode(doc: Document, entry: AuthorizedScript, seen: SeenScript, note: string, recency: Recency): Node {
  // Live text becomes file text: every `${` escaped, as export writes it.
  const node = doc.createNode(escapeTemplates(entry)) as YAMLMap;
  const recent = recencyNote(seen, recency, entry.hash !== undefined);
  node.commentBefore = wrapComment(`${note}${seenNote(seen)}${recent}${maliciousNote(seen)}`, ENTRY_COMMENT_WIDTH);
  const justification = node.items.find((p) => isScalar(p.key) && p.key.value === "justification");
  // The value says TODO itself (validate warns while it is left): no comment after it, which would
  // take the line past 80 columns.
  if (justification && isScalar(justification.value)) justification.value.type = "QUOTE_DOUBLE";
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
    seq.items.push(
      entryNode(doc, entry, seen, " TODO review:", { now: opts.now, days: opts.recentDays ?? DEFAULT_RECENT_DAYS }),
    );
  const n = seq.items.length;
  // Prose is filled as paragraphs (continuation lines one column in); a list item's continuation lines are
  // indented under it.
  const prose = (text: string) => fitLine(text, HEADER_COMMENT_WIDTH, { long: "break", hang: 2 });
  const item = (text: string) => fitLine(text, HEADER_COMMENT_WIDTH, { long: "break" });
  doc.commentBefore = [
    ...prose(
      ` Authorized scripts of the payment pages of zone ${printable(opts.zone)} (PCI DSS v4.0 6.4.3), drafted by` +
        ` zoneform inventory on ${opts.now.toISOString().slice(0, 10)} from what Page Shield saw on ` +
        `${printable(opts.pages.join(", "))}: ${n} script${n === 1 ? "" : "s"}.`,
    ),
    ...prose(
      " Review each entry: write why the script is needed (justification; validate warns while a TODO is left)," +
        " who owns it (owner), remove what should not run on a payment page; then put this block under the" +
        ` zone's ${SCRIPT_INVENTORY_KEYS[0]}: in zoneform.yaml.`,
    ),
    ...(leftOut.length > 0
      ? [
          ...prose(
            ` Left out, ${leftOut.length} look-alike${leftOut.length === 1 ? "" : "s"} of a trusted host (never ` +
              "authorize; remove from the page):",
          ),
          ...leftOut.flatMap((l) => item(`   ${printable(`${l.url}: ${l.reasons.join("; ")}`)}`)),
        ]
      : []),
    ...(opts.headers && drafted
      ? [
          ...prose(
            ` headers: the security headers ${printable(opts.headers.pages.map((p) => p.url).join(", "))} sent on ` +
              `${opts.now.toISOString().slice(0, 10)}, pinned (PCI DSS 11.6.1): review each value; audit then ` +
              "reports a changed or missing one.",
          ),
          ...drafted.uneven.flatMap((u) => item(`   ${unevenNote(u)}`)),
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

/**
 * A zoneform file's document with its `defaults:` merged into each zone, and the pointer in the file
 * each merged value was written at: what config's `applyDefaults` gives (docs/configuration.md#defaults).
 * Inventory reads no configuration itself: its callers pass that function.
 */
export type DefaultsMerger = (document: unknown) => { value: unknown; origin(pointer: string): string };

/** Where one list or mapping of the zone's inventory is written in the file. */
interface InventoryPart {
  /** Its path in the file: below the zone's inventory, or in `defaults:` when the zone takes it from there. */
  path: Array<string | number>;
  /** The zone takes it from `defaults:`: the other zones of the file that take it from there too. */
  shared?: string[];
}

/** The inventory of a zone in a file, as `locateInventory` finds it. */
export interface LocatedInventory {
  doc: Document;
  /** The path of the zone's inventory (`zones[i]…script_inventory`), of a `script_inventory:` block, or []. */
  path: Array<string | number>;
  /** The same, as messages name it. */
  where: string;
  /** What the file means for the zone: its own keys and what it takes from `defaults:`, as written. */
  value: unknown;
  /** The zone's name in the file (its zone_id when it has none); undefined for a plain block. */
  zone?: string;
  /** Where the zone's value at `keys` (below its inventory) is written. */
  part(keys: readonly string[]): InventoryPart;
}

/** The zone's inventory as the file means it, every text read back (`$${` is `${`). */
export interface FileInventory {
  pages: string[];
  /** The authorized entries holding a `url` string (with their justification and hash). */
  authorized: AuthorizedScript[];
  headerUrls: string[];
  /** `headers.pinned`: each header name and its value. */
  pins: Map<string, string>;
}

function rec(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function valueAt(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let v = root;
  for (const key of path) v = Array.isArray(v) ? v[Number(key)] : getOwn(rec(v) ?? {}, String(key));
  return v;
}

/** A path as a JSON pointer (RFC 6901), and back. */
function pointerOf(path: ReadonlyArray<string | number>): string {
  return path.map((k) => `/${String(k).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

function pathOf(pointer: string): string[] {
  return pointer
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** A path as messages name it: `zones[0].page_shield.script_inventory`. */
function pathText(path: ReadonlyArray<string | number>): string {
  return path.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? k : `.${k}`)).join("");
}

function zoneIndex(zones: YAMLSeq, zone: { id: string; name?: string }): number {
  const i = zones.items.findIndex((z) => isMap(z) && String(z.get("zone_id") ?? "").toLowerCase() === zone.id);
  if (i >= 0 || zone.name === undefined) return i;
  return zones.items.findIndex((z) => isMap(z) && String(z.get("name") ?? "").toLowerCase() === zone.name);
}

/** The zone at `i` of the file as messages name it: its name, else its zone_id, else `zones[i]`. */
function zoneName(zones: YAMLSeq, i: number): string {
  const z = zones.items[i];
  const named = isMap(z) ? (z.get("name") ?? z.get("zone_id")) : undefined;
  return printable(named === undefined || named === null ? `zones[${i}]` : String(named));
}

/** The document as plain data, as the configuration reads it (merge keys resolved, aliases bounded). */
function plain(text: string, label: string): unknown {
  try {
    return parseDocument(text, { merge: true }).toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new UsageError(`${label}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Where the inventory sits in `text`: a zoneform file's zone (its own keys, and what it takes from the
 * file's `defaults:`, merged by `defaults`), a `script_inventory:` block, or the top level.
 */
export function locateInventory(
  text: string,
  label: string,
  zone: { id: string; name?: string },
  defaults: DefaultsMerger,
): LocatedInventory {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new UsageError(`${label}: not YAML: ${doc.errors[0]!.message}`);
  const inPlace = (path: Array<string | number>, where: string): LocatedInventory => ({
    doc,
    path,
    where,
    value: valueAt(plain(text, label), path),
    part: (keys) => ({ path: [...path, ...keys] }),
  });
  if (isSeq(doc.get("zones", true))) {
    const zones = doc.get("zones", true) as YAMLSeq;
    const i = zoneIndex(zones, zone);
    if (i < 0)
      throw new UsageError(
        `${label}: no zone ${zone.id}${zone.name ? ` (${zone.name})` : ""} in the file; add it under zones: first`,
      );
    const path: Array<string | number> = ["zones", i, ...SCRIPT_INVENTORY_KEYS];
    const merged = defaults(plain(text, label));
    const part = (keys: readonly string[]): InventoryPart => {
      const own = [...path, ...keys];
      const from = merged.origin(pointerOf(own));
      if (from === pointerOf(own) || valueAt(merged.value, own) === undefined) return { path: own };
      const shared = zones.items.flatMap((_, j) => {
        const theirs = ["zones", j, ...own.slice(2)];
        if (j === i || merged.origin(pointerOf(theirs)) !== from || valueAt(merged.value, theirs) === undefined)
          return [];
        return [zoneName(zones, j)];
      });
      return { path: pathOf(from), shared };
    };
    return { doc, path, where: pathText(path), value: valueAt(merged.value, path), zone: zoneName(zones, i), part };
  }
  if (isMap(doc.get("script_inventory", true))) return inPlace(["script_inventory"], "script_inventory");
  if (isMap(doc.contents) || doc.contents === null) return inPlace([], "the top level");
  throw new UsageError(
    `${label}: expected a zoneform file (zones:) or an inventory block (script_inventory:, or pages: and authorized:)`,
  );
}

/**
 * The zone's inventory in a located file, each text read back as the file means it (`$${` is `${`).
 * Throws UsageError when `pages`, `authorized` or `headers.urls` is not a list, or `headers.pinned`
 * not a mapping.
 */
export function readInventory(located: LocatedInventory, label: string): FileInventory {
  const inv = rec(located.value) ?? {};
  const listAt = (key: string): unknown[] => {
    if (!Object.hasOwn(inv, key)) return [];
    const v = inv[key];
    if (!Array.isArray(v)) throw new UsageError(`${label}: ${located.where}.pages and .authorized must be lists`);
    return v;
  };
  const texts = (items: unknown[]) => items.flatMap((p) => (typeof p === "string" ? [readBack(p)] : []));
  const pages = texts(listAt("pages"));
  const authorized = listAt("authorized").flatMap((item): AuthorizedScript[] => {
    const e = rec(item);
    const url = e ? getOwn(e, "url") : undefined;
    if (!e || typeof url !== "string") return [];
    const justification = getOwn(e, "justification");
    const owner = getOwn(e, "owner");
    const hash = getOwn(e, "hash");
    return [
      {
        url: readBack(url),
        justification: typeof justification === "string" ? justification : String(justification ?? ""),
        ...(typeof owner === "string" ? { owner: readBack(owner) } : {}),
        ...(typeof hash === "string" ? { hash } : {}),
      },
    ];
  });
  const headers = getOwn(inv, "headers");
  const urls = rec(headers) ? getOwn(rec(headers)!, "urls") : undefined;
  const pinned = rec(headers) ? getOwn(rec(headers)!, "pinned") : undefined;
  if ((urls !== undefined && urls !== null && !Array.isArray(urls)) || (pinned != null && !rec(pinned)))
    throw new UsageError(`${label}: ${located.where}.headers.urls must be a list and .pinned a mapping`);
  const pins = new Map<string, string>();
  for (const [name, value] of Object.entries(rec(pinned) ?? {}))
    pins.set(name, typeof value === "string" ? readBack(value) : "");
  return { pages, authorized, headerUrls: Array.isArray(urls) ? texts(urls) : [], pins };
}

/** The page patterns the zone's inventory in `text` already has (none when it has no inventory yet). */
export function existingPages(
  text: string,
  label: string,
  zone: { id: string; name?: string },
  defaults: DefaultsMerger,
): string[] {
  return readInventory(locateInventory(text, label, zone, defaults), label).pages;
}

/** What a merge adds, and to which list or mapping of the zone's inventory (keys below it). */
type Addition = { keys: string[] } & (
  | { kind: "seq"; items: unknown[] }
  | { kind: "map"; pairs: Array<[string, unknown]> }
);

/**
 * The additions placed where the zone's lists and mappings are written: in the zone, or in `defaults:`
 * when the zone takes the value from there (a list written in the zone would replace that one whole).
 * A list that other zones take from `defaults:` too gets something only with `intoDefaults`, else the
 * merge is refused (UsageError, naming them); a mapping merges key by key, so what it adds goes into
 * the zone. An empty addition to a value from `defaults:` is dropped (it would take that value out).
 */
function placed(
  located: LocatedInventory,
  additions: readonly Addition[],
  label: string,
  intoDefaults: boolean,
): { additions: YamlAddition[]; where: string } {
  const out: YamlAddition[] = [];
  const refused: Array<{ keys: string[]; shared: string[] }> = [];
  const places = new Set<string>();
  for (const add of additions) {
    const part = located.part(add.keys);
    const empty = add.kind === "seq" ? add.items.length === 0 : add.pairs.length === 0;
    let path = part.path;
    if (part.shared !== undefined) {
      if (empty) continue;
      if (part.shared.length > 0 && !intoDefaults) {
        if (add.kind === "seq") refused.push({ keys: add.keys, shared: part.shared });
        path = [...located.path, ...add.keys];
      }
    }
    out.push(add.kind === "seq" ? { path, kind: "seq", items: add.items } : { path, kind: "map", pairs: add.pairs });
    if (!empty) places.add(pathText(path.slice(0, path.length - add.keys.length)));
  }
  if (refused.length > 0) {
    const lists = refused.map((r) => [...SCRIPT_INVENTORY_KEYS, ...r.keys].join(".")).join(" and ");
    const zones = [...new Set(refused.flatMap((r) => r.shared))].join(", ");
    const these = refused.length === 1 ? "this list" : "these lists";
    throw new UsageError(
      `${label}: zone ${located.zone ?? "?"} takes ${lists} from defaults:, as do ${zones}; written in the zone, ` +
        `${these} would replace the one${refused.length === 1 ? "" : "s"} in defaults whole, dropping the ` +
        `entries there. Give --into-defaults to add to defaults: for every zone that takes ` +
        `${refused.length === 1 ? "it" : "them"}, or write the zone's own ${refused.length === 1 ? "list" : "lists"} ` +
        "under the zone (with the entries of defaults it keeps) and merge again",
    );
  }
  return { additions: out, where: places.size > 0 ? [...places].join(" and ") : located.where };
}

/**
 * Adds the scripts no entry of `text` covers, and the page patterns it lacks. `zone` picks the zone of a
 * zoneform file (by id, else by name); what the zone takes from the file's `defaults:` counts as its
 * own, and what is added goes where it is written (placed). Throws UsageError when the file is neither
 * shape, or a list the merge adds to is shared in `defaults:` without `intoDefaults`.
 */
export function mergeInventory(
  text: string,
  label: string,
  scripts: readonly SeenScript[],
  opts: {
    pages: string[];
    pinHashes?: boolean;
    recentDays?: number;
    zone: { id: string; name?: string };
    now: Date;
    headers?: PageHeadersSeen;
    /** config's applyDefaults. */
    defaults: DefaultsMerger;
    /** `--into-defaults`: add to a list other zones take from `defaults:` too. */
    intoDefaults?: boolean;
  },
): MergeResult {
  const located = locateInventory(text, label, opts.zone, opts.defaults);
  const { doc } = located;
  const file = readInventory(located, label);
  const known = new Set(file.pages);
  const pagesAdded = opts.pages.filter((p) => !known.has(p));

  const existing = file.authorized;
  const { scripts: kept, leftOut } = withoutLookalikes(scripts, {
    pages: [...known, ...pagesAdded],
    authorized: existing,
  });
  const added: AuthorizedScript[] = [];
  const entries: Node[] = [];
  const note = ` TODO review: added by zoneform inventory --merge on ${opts.now.toISOString().slice(0, 10)};`;
  for (const { entry, seen } of draftEntries(kept, opts.pinHashes)) {
    if (authorizationFor(existing, entry.url)) continue;
    entries.push(entryNode(doc, entry, seen, note, { now: opts.now, days: opts.recentDays ?? DEFAULT_RECENT_DAYS }));
    added.push(entry);
  }
  const additions: Addition[] = [
    { keys: ["pages"], kind: "seq", items: pagesAdded.map((p) => escapeTemplates(p)) },
    { keys: ["authorized"], kind: "seq", items: entries },
  ];
  const headers = opts.headers ? mergeHeaders(file, opts.headers) : undefined;
  if (headers) additions.push(...headers.additions);
  const { additions: edits, where } = placed(located, additions, label, opts.intoDefaults === true);
  let out: ReturnType<typeof addToYaml>;
  try {
    out = addToYaml(text, edits);
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

/** The additions to the inventory's `headers` (URLs and pins it lacks) and what it pins otherwise. */
function mergeHeaders(file: FileInventory, seen: PageHeadersSeen): { additions: Addition[]; merge: HeaderMerge } {
  const knownUrls = new Set(file.headerUrls);
  const filePins = file.pins;
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
      { keys: ["headers", "urls"], kind: "seq", items: urlsAdded.map((u) => escapeTemplates(u)) },
      {
        keys: ["headers", "pinned"],
        kind: "map",
        pairs: pinsAdded.map(([name, value]): [string, unknown] => [name, escapeTemplates(value)]),
      },
    ],
    merge: { urlsAdded, pinsAdded, differing, notSent, uneven },
  };
}
