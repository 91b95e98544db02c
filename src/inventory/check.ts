// Compares what Page Shield saw on a zone's in-scope pages with the authorized-script inventory: pure,
// scripts and details in, findings and one evidence row per entry out.
// Spec: docs/pci-script-inventory.md (the finding types and their PCI DSS requirements).
import { isTodoJustification } from "../sections/index.js";
import { hostReferences, type LookalikeSignal } from "./lookalike.js";
import { authorizationFor, lookalikeMessage, lookalikeScript, type LooksLikeKind } from "./script-match.js";
import type { AuthorizedScript, ScriptInventory } from "./types.js";

export const DEFAULT_STALE_DAYS = 90;
const DAY_MS = 86_400_000;

export interface SeenScript {
  id: string;
  url: string;
  hash?: string | null;
  fetched_at?: string | null;
  first_seen_at?: string;
  last_seen_at?: string;
  status?: string;
  first_page_url?: string;
  malicious?: string[];
}

interface ScriptVersion {
  hash?: string | null;
  fetched_at?: string | null;
  js_integrity_score?: number | null;
}

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
  url: string;
  script_id?: string;
  authorized_url?: string;
  pinned_hash?: string;
  seen_hash?: string;
  fetched_at?: string;
  first_seen_at?: string;
  last_seen_at?: string;
  first_page_url?: string;
  page_urls?: string[];
  looks_like?: string;
  looks_like_kind?: LooksLikeKind;
  signals?: LookalikeSignal[];
  requirement: string;
  message: string;
}

type AuthorizedState = "ok" | "unreviewed" | "changed" | "stale" | "not seen";

interface AuthorizedRow {
  url: string;
  justification: string;
  owner?: string;
  pinned_hash?: string;
  seen_hash?: string;
  first_seen_at?: string;
  last_seen_at?: string;
  scripts: number;
  state: AuthorizedState;
}

export interface InventoryCheck {
  pages: string[];
  stale_days: number;
  scripts_seen: number;
  details_read: number;
  authorized: AuthorizedRow[];
  findings: InventoryFinding[];
}

/** Only a pinned script whose listed hash is not its pin needs its detail (to say when it changed). */
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

function versionOf(versions: readonly ScriptVersion[], hash: string): ScriptVersion | undefined {
  return [...versions]
    .filter((v) => typeof v.hash === "string" && v.hash.toLowerCase() === hash.toLowerCase())
    .sort((a, b) => Date.parse(b.fetched_at ?? "") - Date.parse(a.fetched_at ?? ""))[0];
}

/** When and where the script was seen, as every finding on a seen script carries it. */
function seenFields(s: SeenScript, detail: ScriptDetail | undefined): Partial<InventoryFinding> {
  return {
    ...(s.first_seen_at ? { first_seen_at: s.first_seen_at } : {}),
    ...(s.last_seen_at ? { last_seen_at: s.last_seen_at } : {}),
    ...(s.first_page_url ? { first_page_url: s.first_page_url } : {}),
    ...(detail ? { page_urls: detail.page_urls } : {}),
  };
}

/** A recent script no entry authorizes: unauthorized, and a look-alike first when it imitates one. */
function unauthorizedFindings(
  s: SeenScript,
  detail: ScriptDetail | undefined,
  authorized: readonly AuthorizedScript[],
  refs: ReturnType<typeof hostReferences>,
): InventoryFinding[] {
  const where = s.first_page_url ? ` on ${s.first_page_url}` : "";
  const look = lookalikeScript(authorized, s.url, refs);
  const findings: InventoryFinding[] = [];
  if (look)
    findings.push({
      type: "lookalike",
      severity: "high",
      url: s.url,
      script_id: s.id,
      ...(look.looks_like ? { looks_like: look.looks_like } : {}),
      ...(look.looks_like_kind ? { looks_like_kind: look.looks_like_kind } : {}),
      signals: look.signals,
      ...seenFields(s, detail),
      requirement: REQUIREMENT.lookalike,
      message: lookalikeMessage(s.url, look, where),
    });
  findings.push({
    type: "unauthorized",
    severity: "high",
    url: s.url,
    script_id: s.id,
    ...(typeof s.hash === "string" ? { seen_hash: s.hash } : {}),
    ...seenFields(s, detail),
    requirement: REQUIREMENT.unauthorized,
    message:
      `unauthorized script ${s.url}: ` +
      `seen${where}${s.first_seen_at ? ` since ${s.first_seen_at}` : ""}` +
      `${s.last_seen_at ? `, last ${s.last_seen_at}` : ""}; no entry of the inventory authorizes it`,
  });
  return findings;
}

function changedFinding(
  s: SeenScript,
  detail: ScriptDetail | undefined,
  entry: AuthorizedScript & { hash: string },
  hash: string,
): InventoryFinding {
  const version = detail ? versionOf(detail.versions, hash) : undefined;
  const fetchedAt = version?.fetched_at ?? detail?.fetched_at ?? s.fetched_at ?? undefined;
  const pinned = detail ? versionOf(detail.versions, entry.hash) : undefined;
  const pinnedNote = detail
    ? pinned?.fetched_at
      ? `; the pinned version was last fetched at ${pinned.fetched_at}`
      : "; the pinned version is not among the versions Page Shield keeps"
    : "";
  return {
    type: "changed",
    severity: "high",
    url: s.url,
    script_id: s.id,
    authorized_url: entry.url,
    pinned_hash: entry.hash,
    seen_hash: hash,
    ...(fetchedAt ? { fetched_at: fetchedAt } : {}),
    ...seenFields(s, detail),
    requirement: REQUIREMENT.changed,
    message:
      `changed script ${s.url}: pinned hash ${short(entry.hash)}, seen ` +
      `${short(hash)}${fetchedAt ? ` (new version fetched at ${fetchedAt})` : ""}${pinnedNote}`,
  };
}

/** Counts a script its entry matched into the entry's row; the newest sighting's hash is the one shown. */
function recordSighting(row: AuthorizedRow, s: SeenScript, hash: string | null | undefined): void {
  row.scripts += 1;
  row.first_seen_at = earlier(row.first_seen_at, s.first_seen_at);
  const isNewest =
    row.scripts === 1 || (s.last_seen_at !== undefined && later(row.last_seen_at, s.last_seen_at) === s.last_seen_at);
  if (isNewest && typeof hash === "string") row.seen_hash = hash;
  row.last_seen_at = later(row.last_seen_at, s.last_seen_at);
}

function staleFinding(entry: AuthorizedScript, row: AuthorizedRow, now: Date, staleDays: number): InventoryFinding {
  const lastSeen = row.last_seen_at ? Date.parse(row.last_seen_at) : Number.NaN;
  const days = Number.isNaN(lastSeen) ? undefined : Math.floor((now.getTime() - lastSeen) / DAY_MS);
  return {
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
  };
}

function unreviewedFinding(entry: AuthorizedScript, row: AuthorizedRow, why: string[]): InventoryFinding {
  return {
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
  };
}

const FINDING_ORDER: Record<InventoryFindingType, number> = {
  lookalike: 0,
  unauthorized: 1,
  unreviewed: 2,
  changed: 3,
  stale: 4,
};

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
    if (!entry) {
      if (recent) findings.push(...unauthorizedFindings(s, detail, inventory.authorized, refs));
      continue;
    }
    const hash = detail?.hash ?? s.hash;
    recordSighting(rows.get(entry)!, s, hash);
    if (
      entry.hash !== undefined &&
      recent &&
      typeof hash === "string" &&
      hash.toLowerCase() !== entry.hash.toLowerCase()
    )
      findings.push(changedFinding(s, detail, { ...entry, hash: entry.hash }, hash));
  }

  for (const [entry, row] of rows) {
    if (findings.some((f) => f.type === "changed" && f.authorized_url === entry.url)) row.state = "changed";
    const lastSeen = row.last_seen_at ? Date.parse(row.last_seen_at) : Number.NaN;
    if (row.scripts > 0 && !(lastSeen < since)) {
      if (row.state !== "changed") row.state = "ok";
      continue;
    }
    row.state = row.scripts === 0 ? "not seen" : "stale";
    findings.push(staleFinding(entry, row, opts.now, staleDays));
  }
  // A draft authorizes nothing: whatever it matched is reported, and never shown as ok.
  for (const [entry, row] of rows) {
    const why = draftReasons(entry);
    if (why.length === 0) continue;
    row.state = "unreviewed";
    findings.push(unreviewedFinding(entry, row, why));
  }
  findings.sort(
    (a, b) =>
      FINDING_ORDER[a.type] - FINDING_ORDER[b.type] ||
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
