// What a create finds in its list (op.finds): before the POST, whether something with its hints appeared since the
// plan read the list (another apply); after a POST whose answer was lost, which new objects may be what it made.
// Identity is the id: a candidate is an item whose id the plan did not read (`known`) and whose hints do not say
// it is another object. A list item is a summary (a rulesets list carries no rules): a candidate is read by its
// id (GET the object) before it is compared, and only an object equal to what was sent is ever adopted. An item
// of an entry point's rule list is whole as read, so it is compared as it is.
import type { CloudflareClient } from "../cloudflare/index.js";
import { AnswerShapeError, ApiError } from "../errors.js";
import type { Finder, FinderCompare, Operation } from "../model/index.js";
import { clipJson } from "../redact.js";

/** A list item as apply looks at it. */
export type Item = Record<string, unknown>;

function isItem(value: unknown): value is Item {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** An item's id as text (a number id exactly as the API wrote it, when the client kept it so). */
export function idOf(item: Item): string {
  return typeof item.id === "string" || typeof item.id === "number" || typeof item.id === "bigint"
    ? String(item.id)
    : "";
}

export function idList(items: readonly Item[]): string {
  return items.map((i) => idOf(i) || "(no id)").join(", ");
}

/** The key of a finder's list: what "nothing more is sent to that list" names. */
function listKey(finder: Finder): string {
  return `${finder.path}#${finder.list ?? ""}`;
}

/** Most candidates read by id after one lost answer: more is no lost answer of ours, and each read costs a call. */
export const MAX_CANDIDATE_READS = 10;

/**
 * The items of a finder's list, as the API shows them now: every page of `GET finder.path` (the client's strict
 * reader: every page or cursor to the end, duplicates folded, caps), or its `list` field (an entry point; one that
 * does not exist, 404, holds none). Any other shape is an error, never taken for "none there".
 */
async function readFinderItems(client: CloudflareClient, finder: Finder): Promise<unknown[]> {
  try {
    if (finder.list === undefined) return await client.listAll<unknown>(finder.path);
    const answer = await client.request<unknown>("GET", finder.path);
    // An entry point without rules may leave `rules` out.
    const items = isItem(answer) ? (answer[finder.list] ?? []) : undefined;
    if (!Array.isArray(items)) {
      throw new AnswerShapeError(
        `the API answered GET ${finder.path} with ${clipJson(answer, 60) ?? "nothing"}, expected an object ` +
          `with a list "${finder.list}"`,
      );
    }
    return items;
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound()) return [];
    throw err;
  }
}

/** How an item's hints stand against the finder's: all there and equal, one there and different, or one missing. */
function hintsOf(item: Item, finder: Finder): "match" | "differ" | "unknown" {
  let unknown = false;
  for (const [k, v] of Object.entries(finder.match)) {
    if (!Object.hasOwn(item, k) || item[k] === undefined) unknown = true;
    else if (item[k] !== v) return "differ";
  }
  return unknown ? "unknown" : "match";
}

/**
 * The items of the list that may be the object a create makes: an id the plan did not read, hints that do not say
 * otherwise (an item without one of them is a candidate too: its object says). With `reads`, one read of a path
 * serves every check of it in the zone (the checks before its creates); without, the path is read afresh.
 */
async function candidatesIn(
  client: CloudflareClient,
  finder: Finder,
  reads?: Map<string, Promise<unknown[]>>,
): Promise<Item[]> {
  const key = listKey(finder);
  let pending = reads?.get(key);
  if (!pending) {
    pending = readFinderItems(client, finder);
    reads?.set(key, pending);
  }
  const known = new Set(finder.known ?? []);
  return (await pending).filter((i): i is Item => isItem(i) && hintsOf(i, finder) !== "differ" && !known.has(idOf(i)));
}

/**
 * A candidate's whole object: an item of an entry point's rules is whole as listed; any other is read by id
 * (`GET <list path>/<id>`). Null when the API says it is gone by now; an item without an id cannot be read and
 * stays as listed.
 */
async function wholeObject(client: CloudflareClient, finder: Finder, item: Item): Promise<Item | null> {
  const id = idOf(item);
  if (finder.list !== undefined || id === "") return item;
  const path = `${finder.path}/${encodeURIComponent(id)}`;
  let answer: unknown;
  try {
    answer = await client.request<unknown>("GET", path);
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound()) return null;
    throw err;
  }
  if (!isItem(answer) || idOf(answer) !== id) {
    throw new AnswerShapeError(
      `the API answered GET ${path} with ${clipJson(answer, 60) ?? "nothing"}, expected the object of id ${id}`,
    );
  }
  return answer;
}

/**
 * Before a create: the objects with its hints that appeared since the plan read the list (an item that does not
 * show a hint is read by id to see it). One read of the list per zone serves every create into it (`reads`).
 */
export async function appearedSincePlan(
  client: CloudflareClient,
  finder: Finder,
  reads?: Map<string, Promise<unknown[]>>,
): Promise<Item[]> {
  const candidates = await candidatesIn(client, finder, reads);
  const sure = candidates.filter((i) => hintsOf(i, finder) === "match");
  const unsure = candidates.filter((i) => hintsOf(i, finder) === "unknown");
  // Beyond the cap, an item that does not show its hints is taken as one with them: the zone stops, unread.
  if (unsure.length > MAX_CANDIDATE_READS) return [...sure, ...unsure];
  const read = await Promise.all(unsure.map((i) => wholeObject(client, finder, i)));
  return [...sure, ...read.filter((o): o is Item => o !== null && hintsOf(o, finder) !== "differ")];
}

/** What is there after a POST whose answer was lost. */
export interface LostCreateLook {
  /** New objects that may be what it made (their ids are what "may have been created" names). */
  candidates: Item[];
  /** Those equal to what was sent (read by id). */
  equal: Item[];
  /** More candidates than MAX_CANDIDATE_READS: none was read or compared. */
  tooMany: boolean;
}

/**
 * After a POST whose answer was lost: the list read afresh, each candidate read by id and compared with what was
 * sent (`isWhatWasSent`).
 */
export async function lookForCreated(
  client: CloudflareClient,
  op: Operation & { finds: Finder },
): Promise<LostCreateLook> {
  const listed = await candidatesIn(client, op.finds);
  if (listed.length > MAX_CANDIDATE_READS) return { candidates: listed, equal: [], tooMany: true };
  const objects = (await Promise.all(listed.map((i) => wholeObject(client, op.finds, i)))).filter(
    (o): o is Item => o !== null && hintsOf(o, op.finds) !== "differ",
  );
  return { candidates: objects, equal: objects.filter((o) => isWhatWasSent(o, op)), tooMany: false };
}

/** Deep equality, key order aside; with `within`, the second's objects may hold more keys (fields the API adds). */
function sameValue(a: unknown, b: unknown, within = false): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i], within))
    );
  }
  if (!isItem(a) || !isItem(b)) return false;
  const keys = Object.keys(a);
  if (!within && keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k], within));
}

/** A field as compared: a boolean's text as the boolean, a JSON text as its value ("" as none). */
function comparable(value: unknown, how: FinderCompare | undefined): unknown {
  if (how === "bool") return value === "true" ? true : value === "false" ? false : value;
  if (how === "json" && typeof value === "string") {
    if (value === "") return undefined;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

/**
 * Whether an object holds exactly what was sent. With `equals` (the content the API reads back, no write-only
 * field), every one of its fields compared deeply (see FinderCompare). Without (an entry point, a rule), every field
 * of the body sent, at every depth, reads back the same; what the API adds to an object (ids, versions, dates,
 * categories) is not what was sent and is not compared.
 */
export function isWhatWasSent(object: Item, op: Operation & { finds: Finder }): boolean {
  const { equals, compare } = op.finds;
  if (equals === undefined) return isItem(op.body) && sameValue(op.body, object, true);
  return Object.entries(equals).every(([k, v]) =>
    sameValue(comparable(object[k], compare?.[k]), comparable(v, compare?.[k])),
  );
}
