// Compares what Page Shield saw on a zone's in-scope pages with the authorized-script inventory. Pure:
// the scripts listed (with the `page_url` filter) and the details read go in, findings and one evidence
// row per authorized entry come out.
//
// - unauthorized script (6.4.3): seen on an in-scope page within the window, matched by no entry;
// - changed script (11.6.1): matched by an entry with a `hash` pin, seen with another hash;
// - stale authorization (6.4.3): an entry no in-scope script matching it was seen for `staleDays`;
// - unreviewed authorization (6.4.3): an entry still a draft (its justification the draft's TODO, or no
//   owner): it authorizes nothing until a person has filled it in;
// - look-alike host (6.4.3): a script no entry authorizes, seen within the window, whose URL looks like
//   a trusted one (src/inventory/lookalike.ts: user info, invisible characters, IDN homographs, a
//   trusted name carried in a longer one, 1–2 edits away; or, invisible characters removed, it is an
//   authorized URL). Reported besides its unauthorized finding: it says what the script imitates.
//
// "Seen within the window" is last_seen_at no older than `staleDays` (a script without last_seen_at
// counts as seen). Only a pinned script whose listed hash is not its pin (or is missing) needs its
// detail (`versions`, to say when the new version was fetched): `scriptsNeedingDetail` says which.
import {
  invisibleCharacters,
  isPrefix,
  isTodoJustification,
  urlMatches,
  urlParts,
  withoutInvisible,
} from "../sections/index.js";
import { hostReferences, lookalikeOf, type Lookalike, type LookalikeSignal, type ReferenceKind } from "./lookalike.js";
import type { AuthorizedScript, ScriptInventory } from "./types.js";

export const DEFAULT_STALE_DAYS = 90;
const DAY_MS = 86_400_000;

/** A script as the list shows it (the fields the check reads). */
export interface SeenScript {
  id: string;
  url: string;
  hash?: string | null;
  fetched_at?: string | null;
  first_seen_at?: string;
  last_seen_at?: string;
  status?: string;
  first_page_url?: string;
  /** Why the script is malicious by the verdict `audit` uses (default thresholds), when it is. */
  malicious?: string[];
}

interface ScriptVersion {
  hash?: string | null;
  fetched_at?: string | null;
  js_integrity_score?: number | null;
}

/** What a script's detail adds: every version and every page it was seen on. */
export interface ScriptDetail {
  hash?: string | null;
  fetched_at?: string | null;
  versions: ScriptVersion[];
  page_urls: string[];
}

type InventoryFindingType = "lookalike" | "unauthorized" | "unreviewed" | "changed" | "stale";

const REQUIREMENT: Record<InventoryFindingType, string> = {
  lookalike: "6.4.3",
  unauthorized: "6.4.3",
  unreviewed: "6.4.3",
  changed: "11.6.1",
  stale: "6.4.3",
};

/** Why an entry is still a draft (what a person has not filled in yet), or none when it is reviewed. */
export function draftReasons(entry: AuthorizedScript): string[] {
  const out: string[] = [];
  if (isTodoJustification(entry.justification)) out.push("its justification is the draft's TODO");
  if (entry.owner === undefined || entry.owner.trim() === "") out.push("it names no owner");
  return out;
}

export interface InventoryFinding {
  type: InventoryFindingType;
  severity: "high" | "low";
  /** The script URL seen, or the authorized entry's url for a stale authorization. */
  url: string;
  script_id?: string;
  /** The inventory entry concerned (changed, stale). */
  authorized_url?: string;
  pinned_hash?: string;
  seen_hash?: string;
  /** When the version seen was fetched (changed). */
  fetched_at?: string;
  first_seen_at?: string;
  last_seen_at?: string;
  first_page_url?: string;
  /** In-scope pages the script was seen on, when its detail was read. */
  page_urls?: string[];
  /** Look-alike: the trusted host (or authorized URL) it imitates, when one was found, and what that is. */
  looks_like?: string;
  looks_like_kind?: LooksLikeKind;
  /** Look-alike: the signals that made the verdict (the message gives the reasons). */
  signals?: LookalikeSignal[];
  /** PCI DSS v4.0 requirement the finding bears on. */
  requirement: string;
  message: string;
}

type AuthorizedState = "ok" | "unreviewed" | "changed" | "stale" | "not seen";

/** One authorized entry as the evidence report lists it. */
interface AuthorizedRow {
  url: string;
  justification: string;
  owner?: string;
  pinned_hash?: string;
  /** The hash of the most recently seen matching script. */
  seen_hash?: string;
  first_seen_at?: string;
  last_seen_at?: string;
  /** In-scope scripts it matched. */
  scripts: number;
  state: AuthorizedState;
}

export interface InventoryCheck {
  pages: string[];
  stale_days: number;
  /** In-scope scripts read from the list. */
  scripts_seen: number;
  /** Script details read (only for those that needed one). */
  details_read: number;
  authorized: AuthorizedRow[];
  findings: InventoryFinding[];
}

/** The entry that covers `url`: an exact one first, else the longest prefix. */
export function authorizationFor(authorized: readonly AuthorizedScript[], url: string): AuthorizedScript | undefined {
  let best: AuthorizedScript | undefined;
  for (const a of authorized) {
    if (!urlMatches(a.url, url)) continue;
    if (!isPrefix(a.url)) return a;
    if (!best || a.url.length > best.url.length) best = a;
  }
  return best;
}

/** Ids of the listed scripts whose detail the check needs: pinned, and the list's hash is not the pin. */
export function scriptsNeedingDetail(
  inventory: ScriptInventory,
  scripts: readonly SeenScript[],
  now: Date,
  staleDays = DEFAULT_STALE_DAYS,
): string[] {
  const since = now.getTime() - staleDays * DAY_MS;
  return scripts
    .filter((s) => {
      const entry = authorizationFor(inventory.authorized, s.url);
      return (
        entry?.hash !== undefined &&
        seenSince(s, since) &&
        (typeof s.hash !== "string" || s.hash.toLowerCase() !== entry.hash.toLowerCase())
      );
    })
    .map((s) => s.id);
}

function seenSince(s: SeenScript, since: number): boolean {
  if (!s.last_seen_at) return true;
  const t = Date.parse(s.last_seen_at);
  return Number.isNaN(t) || t >= since;
}

function later(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

function earlier(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(b) < Date.parse(a) ? b : a;
}

function short(hash: string): string {
  return hash.length > 12 ? `${hash.slice(0, 12)}…` : hash;
}

/** The version of `hash` among `versions`, latest fetch first. */
function versionOf(versions: readonly ScriptVersion[], hash: string): ScriptVersion | undefined {
  return [...versions]
    .filter((v) => typeof v.hash === "string" && v.hash.toLowerCase() === hash.toLowerCase())
    .sort((a, b) => Date.parse(b.fetched_at ?? "") - Date.parse(a.fetched_at ?? ""))[0];
}

/** What a look-alike imitates: a trusted host (lookalike.ts), or an authorized URL (invisible characters). */
export type LooksLikeKind = ReferenceKind | "entry";

const LOOKS_LIKE_WHAT: Record<LooksLikeKind, string> = {
  authorized: "an authorized host",
  page: "a host of the pages in scope",
  "well-known": "a well-known payment or CDN host",
  entry: "an authorized URL",
};

/**
 * Whether an unauthorized script's URL looks like a trusted one: its host by lookalikeOf, or the URL
 * itself, which is an authorized one once its invisible characters are removed.
 */
export function lookalikeScript(
  authorized: readonly AuthorizedScript[],
  url: string,
  refs = hostReferences({ authorized: authorized.map((a) => a.url) }),
): (Omit<Lookalike, "looks_like_kind"> & { looks_like_kind?: LooksLikeKind }) | undefined {
  const verdict = lookalikeOf(url, refs);
  if (verdict) return verdict;
  const visible = withoutInvisible(url);
  const entry = visible !== url ? authorizationFor(authorized, visible) : undefined;
  if (!entry) return undefined;
  const chars = invisibleCharacters(url);
  return {
    host: urlParts(url)?.host ?? "",
    looks_like: entry.url,
    looks_like_kind: "entry",
    signals: ["invisible"],
    reasons: [
      `invisible character${chars.length === 1 ? "" : "s"} ${chars.join(", ")} in the URL: without ` +
        `${chars.length === 1 ? "it" : "them"} it reads as ${visible}, which ${entry.url} authorizes`,
    ],
  };
}

function lookalikeMessage(url: string, look: ReturnType<typeof lookalikeScript> & {}, where: string): string {
  const like = look.looks_like
    ? ` looks like ${LOOKS_LIKE_WHAT[look.looks_like_kind ?? "well-known"]}, ${look.looks_like}`
    : " disguises its host";
  return (
    `look-alike host: ${url}${where ? ` (seen${where})` : ""}${like}: ${look.reasons.join("; ")}; never ` +
    "authorize it, remove it from the page and find out how it got there"
  );
}

export function checkInventory(
  inventory: ScriptInventory,
  scripts: readonly SeenScript[],
  details: ReadonlyMap<string, ScriptDetail>,
  opts: { now: Date; staleDays?: number },
): InventoryCheck {
  const staleDays = opts.staleDays ?? DEFAULT_STALE_DAYS;
  const since = opts.now.getTime() - staleDays * DAY_MS;
  const findings: InventoryFinding[] = [];
  const refs = hostReferences({ authorized: inventory.authorized.map((a) => a.url), pages: inventory.pages });
  const rows = new Map<AuthorizedScript, AuthorizedRow>(
    inventory.authorized.map((a) => [
      a,
      {
        url: a.url,
        justification: a.justification,
        ...(a.owner !== undefined ? { owner: a.owner } : {}),
        ...(a.hash !== undefined ? { pinned_hash: a.hash } : {}),
        scripts: 0,
        state: "not seen" as AuthorizedState,
      },
    ]),
  );

  for (const s of scripts) {
    const entry = authorizationFor(inventory.authorized, s.url);
    const recent = seenSince(s, since);
    const detail = details.get(s.id);
    const seenOn = detail ? { page_urls: detail.page_urls } : {};
    const where = s.first_page_url ? ` on ${s.first_page_url}` : "";
    if (!entry) {
      if (!recent) continue;
      const look = lookalikeScript(inventory.authorized, s.url, refs);
      if (look)
        findings.push({
          type: "lookalike",
          severity: "high",
          url: s.url,
          script_id: s.id,
          ...(look.looks_like ? { looks_like: look.looks_like } : {}),
          ...(look.looks_like_kind ? { looks_like_kind: look.looks_like_kind } : {}),
          signals: look.signals,
          ...(s.first_seen_at ? { first_seen_at: s.first_seen_at } : {}),
          ...(s.last_seen_at ? { last_seen_at: s.last_seen_at } : {}),
          ...(s.first_page_url ? { first_page_url: s.first_page_url } : {}),
          ...seenOn,
          requirement: REQUIREMENT.lookalike,
          message: lookalikeMessage(s.url, look, where),
        });
      findings.push({
        type: "unauthorized",
        severity: "high",
        url: s.url,
        script_id: s.id,
        ...(typeof s.hash === "string" ? { seen_hash: s.hash } : {}),
        ...(s.first_seen_at ? { first_seen_at: s.first_seen_at } : {}),
        ...(s.last_seen_at ? { last_seen_at: s.last_seen_at } : {}),
        ...(s.first_page_url ? { first_page_url: s.first_page_url } : {}),
        ...seenOn,
        requirement: REQUIREMENT.unauthorized,
        message:
          `unauthorized script ${s.url}: ` +
          `seen${where}${s.first_seen_at ? ` since ${s.first_seen_at}` : ""}` +
          `${s.last_seen_at ? `, last ${s.last_seen_at}` : ""}; no entry of the inventory authorizes it`,
      });
      continue;
    }
    const row = rows.get(entry)!;
    row.scripts += 1;
    row.first_seen_at = earlier(row.first_seen_at, s.first_seen_at);
    const hash = detail?.hash ?? s.hash;
    const isNewest =
      row.scripts === 1 || (s.last_seen_at !== undefined && later(row.last_seen_at, s.last_seen_at) === s.last_seen_at);
    if (isNewest && typeof hash === "string") row.seen_hash = hash;
    row.last_seen_at = later(row.last_seen_at, s.last_seen_at);
    if (
      entry.hash === undefined ||
      !recent ||
      typeof hash !== "string" ||
      hash.toLowerCase() === entry.hash.toLowerCase()
    )
      continue;
    const version = detail ? versionOf(detail.versions, hash) : undefined;
    const fetchedAt = version?.fetched_at ?? detail?.fetched_at ?? s.fetched_at ?? undefined;
    const pinned = detail ? versionOf(detail.versions, entry.hash) : undefined;
    const pinnedNote = detail
      ? pinned?.fetched_at
        ? `; the pinned version was last fetched at ${pinned.fetched_at}`
        : "; the pinned version is not among the versions Page Shield keeps"
      : "";
    findings.push({
      type: "changed",
      severity: "high",
      url: s.url,
      script_id: s.id,
      authorized_url: entry.url,
      pinned_hash: entry.hash,
      seen_hash: hash,
      ...(fetchedAt ? { fetched_at: fetchedAt } : {}),
      ...(s.first_seen_at ? { first_seen_at: s.first_seen_at } : {}),
      ...(s.last_seen_at ? { last_seen_at: s.last_seen_at } : {}),
      ...(s.first_page_url ? { first_page_url: s.first_page_url } : {}),
      ...seenOn,
      requirement: REQUIREMENT.changed,
      message:
        `changed script ${s.url}: pinned hash ${short(entry.hash)}, seen ` +
        `${short(hash)}${fetchedAt ? ` (new version fetched at ${fetchedAt})` : ""}${pinnedNote}`,
    });
  }

  for (const [entry, row] of rows) {
    if (findings.some((f) => f.type === "changed" && f.authorized_url === entry.url)) row.state = "changed";
    const lastSeen = row.last_seen_at ? Date.parse(row.last_seen_at) : NaN;
    if (row.scripts > 0 && !(lastSeen < since)) {
      if (row.state !== "changed") row.state = "ok";
      continue;
    }
    row.state = row.scripts === 0 ? "not seen" : "stale";
    const days = Number.isNaN(lastSeen) ? undefined : Math.floor((opts.now.getTime() - lastSeen) / DAY_MS);
    findings.push({
      type: "stale",
      severity: "low",
      url: entry.url,
      authorized_url: entry.url,
      ...(entry.hash !== undefined ? { pinned_hash: entry.hash } : {}),
      ...(row.last_seen_at ? { last_seen_at: row.last_seen_at } : {}),
      requirement: REQUIREMENT.stale,
      message:
        row.scripts === 0
          ? `stale authorization ${entry.url}: no script it covers was seen on the in-scope pages; remove ` +
            `it or check the pages`
          : `stale authorization ${entry.url}: last seen ` +
            `${row.last_seen_at}${days !== undefined ? ` (${days} days ago)` : ""}, more than ${staleDays} ` +
            `days; remove it if the script is gone`,
    });
  }
  // A draft authorizes nothing: whatever it matched is reported, and never shown as ok.
  for (const [entry, row] of rows) {
    const why = draftReasons(entry);
    if (why.length === 0) continue;
    row.state = "unreviewed";
    findings.push({
      type: "unreviewed",
      severity: "high",
      url: entry.url,
      authorized_url: entry.url,
      ...(row.seen_hash ? { seen_hash: row.seen_hash } : {}),
      ...(row.first_seen_at ? { first_seen_at: row.first_seen_at } : {}),
      ...(row.last_seen_at ? { last_seen_at: row.last_seen_at } : {}),
      requirement: REQUIREMENT.unreviewed,
      message:
        `unreviewed script ${entry.url}: its inventory entry is a draft (${why.join(" and ")}), so it ` +
        `authorizes nothing; ${row.scripts} script(s) it covers seen on the pages in scope. Write why it is ` +
        "needed and who owns it, or remove it and the script",
    });
  }
  const order: Record<InventoryFindingType, number> = {
    lookalike: 0,
    unauthorized: 1,
    unreviewed: 2,
    changed: 3,
    stale: 4,
  };
  findings.sort(
    (a, b) =>
      order[a.type] - order[b.type] ||
      (a.url < b.url ? -1 : a.url > b.url ? 1 : 0) ||
      ((a.script_id ?? "") < (b.script_id ?? "") ? -1 : 1),
  );
  return {
    pages: inventory.pages,
    stale_days: staleDays,
    scripts_seen: scripts.length,
    details_read: details.size,
    authorized: [...rows.values()],
    findings,
  };
}
