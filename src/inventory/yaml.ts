// Drafts the `script_inventory:` block from what Page Shield saw, for people to review.
// Spec: docs/pci-script-inventory.md. Seen URLs are file text as data (every `${` escaped), and a
// look-alike of a trusted host is never drafted as an entry: it is named as left out.
import { Document, isScalar, Pair, type Node, type YAMLMap, type YAMLSeq } from "yaml";
import { getOwn } from "../data-record.js";
import { safeYamlText } from "../safe-yaml.js";
import { printable } from "../safe-text.js";
import { fitLine } from "../text-width.js";
import { escapeTemplates, SCRIPT_INVENTORY_KEYS, SECURITY_HEADERS, TODO_JUSTIFICATION } from "../sections/index.js";
import type { SeenScript } from "./check.js";
import { lookalikeScript } from "./script-match.js";
import { hostReferences } from "./lookalike.js";
import type { AuthorizedScript } from "./types.js";

export { TODO_JUSTIFICATION } from "../sections/index.js";

interface Recency {
  now: Date;
  days: number;
}

export const DEFAULT_RECENT_DAYS = 30;

export interface DraftOptions {
  pages: string[];
  pinHashes?: boolean;
  recentDays?: number;
  zone: string;
  now: Date;
  headers?: PageHeadersSeen;
}

export interface PageHeadersSeen {
  pages: Array<{ url: string; headers: Record<string, string> }>;
}

export interface UnevenHeader {
  header: string;
  /** Each page's value (undefined: it does not send the header). */
  values: Array<{ url: string; value?: string }>;
}

// One pin must hold for every page, so a header the pages send unevenly is not pinned.
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

// Comment lines fit 80 columns; an entry's leaves room for a zone file's indent of `authorized:` items.
const HEADER_COMMENT_WIDTH = 79;
const ENTRY_COMMENT_WIDTH = 68;

function wrapComment(text: string, width: number): string {
  return text
    .split("\n")
    .flatMap((l) => fitLine(l, width, { long: "break" }))
    .join("\n");
}

function unevenNote(u: UnevenHeader): string {
  const shown = u.values
    .map((v) => `${v.url} ${v.value === undefined ? "sends none" : `sends ${JSON.stringify(short(v.value))}`}`)
    .join("; ");
  return printable(`${u.header} not pinned, the pages differ: ${shown}`);
}

function short(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

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

const DAY = 86_400_000;

function daysAgo(at: string | null | undefined, now: Date): number | undefined {
  const t = at ? Date.parse(at) : Number.NaN;
  return Number.isNaN(t) ? undefined : Math.floor((now.getTime() - t) / DAY);
}

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

function maliciousNote(s: SeenScript): string {
  return s.malicious?.length
    ? `\n ${printable(`MALICIOUS (${s.malicious.join("; ")}): remove it from the page, do not authorize it`)}`
    : "";
}

export interface LeftOutScript {
  url: string;
  reasons: string[];
}

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

export function entryNode(
  doc: Document,
  entry: AuthorizedScript,
  seen: SeenScript,
  note: string,
  recency: Recency,
): Node {
  const node = doc.createNode(escapeTemplates(entry)) as YAMLMap;
  const recent = recencyNote(seen, recency, entry.hash !== undefined);
  node.commentBefore = wrapComment(`${note}${seenNote(seen)}${recent}${maliciousNote(seen)}`, ENTRY_COMMENT_WIDTH);
  const justification = node.items.find((p) => isScalar(p.key) && p.key.value === "justification");
  // No trailing TODO comment: the value says TODO itself, and the line would pass 80 columns.
  if (justification && isScalar(justification.value)) justification.value.type = "QUOTE_DOUBLE";
  return node;
}

export function draftInventory(scripts: readonly SeenScript[], opts: DraftOptions): string {
  const { scripts: kept, leftOut } = withoutLookalikes(scripts, { pages: opts.pages, authorized: [] });
  const drafted = opts.headers ? draftPins(opts.headers) : undefined;
  const doc = new Document({ script_inventory: { pages: escapeTemplates(opts.pages), authorized: [] as unknown[] } });
  if (opts.headers && drafted) {
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
