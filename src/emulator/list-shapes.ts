// List shapes on request: one list endpoint answers in a shape the real API may produce.
// Spec: docs/emulator.md, List shapes.
import { readAdminBody, type FieldRule } from "./admin-input.js";
import { ApiFault } from "./types.js";

export interface ListShape {
  /** The list's API path, e.g. `zones/<id>/page_shield/policies` (no leading slash, no query). */
  path: string;
  /** Answer pages of this many items, with result_info (default: the request's per_page, else 50). */
  per_page?: number;
  /** Cursor pages (result_info.cursor) instead of numbered ones. */
  cursor?: boolean;
  /** The index of an item answered twice, right after itself (a paging overlap). */
  duplicate?: number;
  /** The second copy of `duplicate` differs from the first (a changed description or name). */
  conflicting?: boolean;
  /** This page (1-based) is answered empty… */
  empty_page?: number;
  /** …this many times (default: every time). */
  empty_times?: number;
  /** Announced totals, whatever the list holds (e.g. total_pages 1e10). */
  total_pages?: number;
  total_count?: number;
  /** result_info without total_pages and total_count. */
  no_totals?: boolean;
  /** Numeric ids (Logpush jobs) answered as 2^53 + id, raw JSON numbers; paths take them back. */
  big_ids?: boolean;
}

/** Where big ids start: 2^53, the first integer JSON.parse cannot tell from its neighbour. */
const BIG_ID_BASE = 2n ** 53n;

interface ShapeState {
  shape: ListShape;
  emptied: number;
}

const shapesByRuntime = new WeakMap<object, ShapeState[]>();

function shapesOf(rt: object): ShapeState[] {
  let list = shapesByRuntime.get(rt);
  if (!list) shapesByRuntime.set(rt, (list = []));
  return list;
}

const COUNT: FieldRule = { type: "integer", min: 1, max: 1e15, expected: "a whole number of at least 1" };
const RULES: Record<string, FieldRule> = {
  path: {
    type: "string",
    required: true,
    expected: "an API path such as zones/<id>/logpush/jobs",
    check: (v: string) => (/^[^/?]+(\/[^/?]+)*$/.test(v) ? undefined : "no leading slash, no query"),
  },
  per_page: { type: "integer", min: 1, max: 1000, expected: "a whole number from 1 to 1000" },
  cursor: { type: "boolean", expected: "true or false" },
  duplicate: { type: "integer", min: 0, max: 1e6, expected: "the index of an item (0 or more)" },
  conflicting: { type: "boolean", expected: "true or false" },
  empty_page: COUNT,
  empty_times: COUNT,
  total_pages: COUNT,
  total_count: COUNT,
  no_totals: { type: "boolean", expected: "true or false" },
  big_ids: { type: "boolean", expected: "true or false" },
};

export function addListShape(rt: object, body: unknown): ListShape[] {
  const b = readAdminBody(body, RULES) as unknown as ListShape;
  const list = shapesOf(rt);
  const at = list.findIndex((s) => s.shape.path === b.path);
  if (at >= 0) list.splice(at, 1);
  list.push({ shape: { ...b }, emptied: 0 });
  return listShapes(rt);
}

export function listShapes(rt: object): ListShape[] {
  return shapesOf(rt).map((s) => s.shape);
}

export function clearListShapes(rt: object): void {
  shapesOf(rt).length = 0;
}

/** The path a route sees: a big id (2^53 + n) in a shaped list's item path becomes n again. */
export function routedPath(rt: object, path: string): string {
  for (const { shape } of shapesOf(rt)) {
    if (!shape.big_ids || !path.startsWith(`${shape.path}/`)) continue;
    const rest = path.slice(shape.path.length + 1);
    const m = /^(\d+)(\/.*)?$/.exec(rest);
    if (!m) continue;
    const big = BigInt(m[1]!);
    // Not a big id (or a rounded one below the base): left alone, so the route answers as it would.
    if (big <= BIG_ID_BASE) continue;
    return `${shape.path}/${String(big - BIG_ID_BASE)}${m[2] ?? ""}`;
  }
  return path;
}

type Envelope = { result: unknown; result_info?: Record<string, unknown>; [k: string]: unknown };

export async function shapeAnswer(
  rt: object,
  method: string,
  path: string,
  query: URLSearchParams,
  envelope: Envelope,
  readAll: (query: URLSearchParams) => Promise<Envelope>,
): Promise<Envelope> {
  const states = shapesOf(rt);
  if (states.length === 0) return envelope;
  const exact = states.find((s) => s.shape.path === path);
  const under = states.find((s) => s.shape.big_ids && path.startsWith(`${s.shape.path}/`));
  if (exact && method === "GET" && Array.isArray(envelope.result))
    return shapeList(exact, query, await wholeList(query, readAll), bigIds);
  if ((exact?.shape.big_ids || under) && envelope.result !== null)
    return { ...envelope, result: bigIds(envelope.result) };
  return envelope;

  function bigIds(result: unknown): unknown {
    const shape = exact?.shape ?? under?.shape;
    if (!shape?.big_ids) return result;
    const one = (item: unknown) =>
      item !== null && typeof item === "object" && typeof (item as { id?: unknown }).id === "number"
        ? { ...(item as object), id: BIG_ID_BASE + BigInt((item as { id: number }).id) }
        : item;
    return Array.isArray(result) ? result.map(one) : one(result);
  }
}

async function wholeList(
  query: URLSearchParams,
  readAll: (query: URLSearchParams) => Promise<Envelope>,
): Promise<unknown[]> {
  const q = new URLSearchParams(query);
  for (const k of ["page", "per_page", "cursor"]) q.delete(k);
  const first = await readAll(q);
  const items = [...(first.result as unknown[])];
  const info = first.result_info;
  const pages = typeof info?.total_pages === "number" ? info.total_pages : 1;
  for (let page = 2; page <= pages; page++) {
    const next = new URLSearchParams(q);
    next.set("page", String(page));
    if (typeof info?.per_page === "number") next.set("per_page", String(info.per_page));
    items.push(...((await readAll(next)).result as unknown[]));
  }
  let cursor = typeof info?.cursor === "string" ? info.cursor : "";
  while (cursor !== "") {
    const next = new URLSearchParams(q);
    next.set("cursor", cursor);
    const env = await readAll(next);
    items.push(...(env.result as unknown[]));
    cursor = typeof env.result_info?.cursor === "string" ? env.result_info.cursor : "";
  }
  return items;
}

function shapeList(
  state: ShapeState,
  query: URLSearchParams,
  all: unknown[],
  bigIds: (r: unknown) => unknown,
): Envelope {
  const shape = state.shape;
  const items = [...all];
  if (shape.duplicate !== undefined && shape.duplicate < items.length) {
    const original = items[shape.duplicate] as Record<string, unknown>;
    const copy = shape.conflicting ? changed(original) : structuredClone(original);
    items.splice(shape.duplicate + 1, 0, copy);
  }
  const asked = Number(query.get("per_page"));
  const size = shape.per_page ?? (Number.isInteger(asked) && asked > 0 ? asked : 50);
  let offset: number;
  if (shape.cursor) {
    const raw = query.get("cursor");
    const m = raw ? /^offset:(\d+)$/.exec(Buffer.from(raw, "base64url").toString()) : null;
    if (raw && !m)
      throw new ApiFault(400, [
        { code: 20021, message: `cursor ${JSON.stringify(raw)} is not a cursor this API returned` },
      ]);
    offset = m ? Number(m[1]) : 0;
  } else {
    const page = Number(query.get("page") ?? "1");
    offset = (Number.isInteger(page) && page > 0 ? page - 1 : 0) * size;
  }
  const page = Math.floor(offset / size) + 1;
  let result = items.slice(offset, offset + size);
  if (shape.empty_page === page && (shape.empty_times === undefined || state.emptied < shape.empty_times)) {
    state.emptied++;
    result = [];
  }
  const info: Record<string, unknown> = shape.cursor
    ? {
        cursor: offset + size < items.length ? Buffer.from(`offset:${offset + size}`).toString("base64url") : "",
        per_page: size,
        count: result.length,
      }
    : { page, per_page: size, count: result.length };
  if (!shape.cursor && !shape.no_totals) {
    info.total_count = shape.total_count ?? items.length;
    info.total_pages = shape.total_pages ?? Math.ceil(items.length / size);
  }
  return { result: bigIds(result), success: true, errors: [], messages: [], result_info: info };
}

/** A copy of an item that differs: its description or name changed, else a field added. */
function changed(item: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(item);
  if (typeof copy.description === "string") copy.description += " (changed)";
  else if (typeof copy.name === "string") copy.name += " (changed)";
  else copy.changed = true;
  return copy;
}
