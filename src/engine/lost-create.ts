// What a create finds in its list: before the POST, whether its object appeared since the plan (another
// apply); after a POST whose answer was lost, which new object it made. Only an object equal to what was
// sent is ever adopted.
import type { CloudflareClient } from "../cloudflare/index.js";
import { AnswerShapeError, ApiError } from "../errors.js";
import type { Finder, FinderCompare, Operation } from "../model/index.js";
import { clipJson } from "../redact.js";

/** A list item as apply looks at it. */
export type Item = Record<string, unknown>;

function isItem(value: unknown): value is Item {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function idOf(item: Item): string {
  return typeof item.id === "string" || typeof item.id === "number" || typeof item.id === "bigint"
    ? String(item.id)
    : "";
}

export function idList(items: readonly Item[]): string {
  return items.map((i) => idOf(i) || "(no id)").join(", ");
}

function listKey(finder: Finder): string {
  return `${finder.path}#${finder.list ?? ""}`;
}

export const MAX_CANDIDATE_READS = 10;

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

function hintsOf(item: Item, finder: Finder): "match" | "differ" | "unknown" {
  let unknown = false;
  for (const [k, v] of Object.entries(finder.match)) {
    if (!Object.hasOwn(item, k) || item[k] === undefined) unknown = true;
    else if (item[k] !== v) return "differ";
  }
  return unknown ? "unknown" : "match";
}

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

export async function appearedSincePlan(
  client: CloudflareClient,
  finder: Finder,
  reads?: Map<string, Promise<unknown[]>>,
): Promise<Item[]> {
  const candidates = await candidatesIn(client, finder, reads);
  const sure = candidates.filter((i) => hintsOf(i, finder) === "match");
  const unsure = candidates.filter((i) => hintsOf(i, finder) === "unknown");
  if (unsure.length > MAX_CANDIDATE_READS) return [...sure, ...unsure];
  const read = await Promise.all(unsure.map((i) => wholeObject(client, finder, i)));
  return [...sure, ...read.filter((o): o is Item => o !== null && hintsOf(o, finder) !== "differ")];
}

/** What is there after a POST whose answer was lost. */
export interface LostCreateLook {
  candidates: Item[];
  /** Those equal to what was sent (read by id). */
  equal: Item[];
  /** More candidates than MAX_CANDIDATE_READS: none was read or compared. */
  tooMany: boolean;
}

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

/** Whether an object holds exactly what was sent. */
export function isWhatWasSent(object: Item, op: Operation & { finds: Finder }): boolean {
  const { equals, compare } = op.finds;
  if (equals === undefined) return isItem(op.body) && sameValue(op.body, object, true);
  return Object.entries(equals).every(([k, v]) =>
    sameValue(comparable(object[k], compare?.[k]), comparable(v, compare?.[k])),
  );
}
