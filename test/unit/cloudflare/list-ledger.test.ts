// The list reader's ledger of the items answered (src/cloudflare/list-ledger.ts): an item answered twice is folded
// when identical, whatever its key order, and stops the read when not; what it keeps of an item is its id, its page
// and a digest, never the item. And the reader (src/cloudflare/list-reader.ts) releases each page once its items are
// taken: items of pages read are collected while the list is still being read, and a page asked for ahead is read
// (parsed) only in its turn (issue 39: flat memory).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { ItemLedger } from "../../../src/cloudflare/list-ledger.js";
import { ListReader } from "../../../src/cloudflare/list-reader.js";
import { AnswerShapeError, ApiError } from "../../../src/errors.js";
import type { Envelope } from "../../../src/cloudflare/types.js";

const PATH = "zones/z/page_shield/scripts";

function ledger(max = 1_000_000) {
  const warnings: string[] = [];
  return {
    l: new ItemLedger(
      PATH,
      (s) => s.replace("/z/", "/[zone]/"),
      (w) => warnings.push(w),
      max,
    ),
    warnings,
  };
}

/** A script as the list answers it, `pad` characters of payload. */
const script = (n: number, pad = 0) => ({
  id: `id-${n}`,
  url: `https://cdn.example/${n}.js`,
  js_integrity_score: n % 100,
  page_urls: [`shop.example/${n}`],
  note: "x".repeat(pad),
});

describe("ItemLedger", () => {
  it("admits each id once; an identical answer of it is folded with one warning naming the pages", () => {
    const { l, warnings } = ledger();
    expect(l.admit(script(1), 1)).toBe(true);
    expect(l.admit(script(2), 1)).toBe(true);
    expect(l.admit(script(1), 2)).toBe(false);
    expect(l.admit(script(1), 3)).toBe(false);
    expect(l.admit(script(2), 1)).toBe(false);
    expect(warnings).toEqual([
      `warning: GET ${PATH}: the list holds id "id-1" on pages 1 and 2 with the same content (a paging overlap); ` +
        "read once",
      `warning: GET ${PATH}: the list holds id "id-2" twice on page 1 with the same content (a paging overlap); ` +
        "read once",
    ]);
    expect(l.size).toBe(2);
  });

  it("compares content whatever the key order, and refuses an id answered with other content", () => {
    const { l } = ledger();
    expect(l.admit({ id: "p", a: 1, b: { c: [1, { d: 2, e: 3 }] } }, 1)).toBe(true);
    expect(l.admit({ b: { c: [1, { e: 3, d: 2 }] }, a: 1, id: "p" }, 2)).toBe(false);
    let err: unknown;
    try {
      l.admit({ id: "p", a: 1, b: { c: [1, { d: 2, e: 4 }] } }, 4);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AnswerShapeError);
    expect((err as Error).message).toBe(
      'GET zones/[zone]/page_shield/scripts: the list holds id "p" on pages 1 and 4 with different content; ' +
        "zoneform cannot tell which is live, so it stopped this zone and changed nothing; try again later",
    );
  });

  it("tells a string id from a number id, and counts items without an id without folding them", () => {
    const { l, warnings } = ledger();
    expect(l.admit({ id: 1 }, 1)).toBe(true);
    expect(l.admit({ id: "1" }, 1)).toBe(true);
    expect(l.admit({ id: 1 }, 2)).toBe(false);
    for (const item of [{ name: "a" }, { name: "a" }, { id: null }, { id: { x: 1 } }, "text", null])
      expect(l.admit(item, 2)).toBe(true);
    expect(warnings).toEqual([
      `warning: GET ${PATH}: the list holds id 1 on pages 1 and 2 with the same content (a paging overlap); read once`,
    ]);
  });

  it("remembers the first answer of every id past its first room, and stops past the item cap", () => {
    const { l } = ledger();
    const n = 5_000;
    for (let i = 0; i < n; i++) expect(l.admit(script(i), 1 + Math.floor(i / 100))).toBe(true);
    // An id of the first page, answered again at the end: same content folded, other content refused.
    expect(l.admit(script(7), 60)).toBe(false);
    expect(l.admit(script(4_321), 60)).toBe(false);
    expect(() => l.admit({ ...script(7), js_integrity_score: 1 }, 61)).toThrow(
      'the list holds id "id-7" on pages 1 and 61 with different content',
    );
    expect(l.size).toBe(n);

    const capped = ledger(3).l;
    for (let i = 0; i < 3; i++) capped.admit(script(i), 1);
    let err: unknown;
    try {
      capped.admit(script(3), 1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as Error).message).toContain("the list went on past 3 items (the item cap, --max-list-items)");
  });

  it("keeps the same few bytes per id whatever the size of the items", () => {
    const small = ledger().l;
    const large = ledger().l;
    for (let i = 0; i < 3_000; i++) {
      small.admit(script(i), 1 + Math.floor(i / 100));
      large.admit(script(i, 20_000), 1 + Math.floor(i / 100));
    }
    expect(large.arrayBytes).toBe(small.arrayBytes);
    // Room for 4 096 ids: a page number (8 bytes, any page a read can reach) and a digest (16 bytes) each.
    expect(large.arrayBytes).toBe(4_096 * 24);
  });
});

/** V8's collector, exposed for this file (as `node --expose-gc` would). */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

describe("ListReader", () => {
  it("releases the pages it has read: their items are collected while the list is still being read", async () => {
    const gc = collector();
    const pages = 40;
    const perPage = 50;
    // Each page made fresh when read, as an answer parsed from the wire is; nothing else holds it.
    const get = async (_path: string, query: Record<string, unknown> | undefined): Promise<() => Envelope<unknown>> => {
      const page = Number(query?.page);
      await new Promise((r) => setImmediate(r));
      return () => {
        const result = Array.from({ length: perPage }, (_, i) => script((page - 1) * perPage + i, 2_000));
        const result_info = { page, per_page: perPage, total_pages: pages, total_count: pages * perPage };
        return { result, result_info, status: 200 };
      };
    };
    const reader = new ListReader({ get, redact: (s) => s, warn: () => {}, maxItems: 1_000_000, maxPages: 1_000 });
    const seen: WeakRef<object>[] = [];
    let read = 0;
    let collectedBefore = -1;
    let heldBefore = -1;
    const checkAt = 30 * perPage; // the first item of page 31: pages 1-30 are read, 31-35 asked ahead
    for await (const item of reader.read<object>(PATH, "page", { perPage, lookahead: 4 })) {
      seen.push(new WeakRef(item));
      read++;
      if (read === checkAt + 1) {
        // A turn of the event loop lets go of the WeakRefs' own hold on their targets; then a full collection.
        await new Promise((r) => setImmediate(r));
        gc();
        const earlier = seen.slice(0, 28 * perPage);
        collectedBefore = earlier.filter((w) => w.deref() === undefined).length;
        heldBefore = earlier.length - collectedBefore;
      }
    }
    expect(read).toBe(pages * perPage);
    // Every item of pages 1-28 is gone (page 29 and 30 may linger in the reader's registers until it moves on).
    expect({ collected: collectedBefore, held: heldBefore }).toEqual({ collected: 28 * perPage, held: 0 });
  });

  it("reads a page asked for ahead only when its turn comes: until then it waits as its answer, unparsed", async () => {
    const pages = 12;
    const perPage = 10;
    const fetched: number[] = [];
    const parsed: number[] = [];
    const get = async (_path: string, query: Record<string, unknown> | undefined) => {
      const page = Number(query?.page);
      fetched.push(page);
      await new Promise((r) => setImmediate(r));
      return () => {
        parsed.push(page);
        const result = Array.from({ length: perPage }, (_, i) => script((page - 1) * perPage + i));
        return { result, result_info: { page, per_page: perPage, total_pages: pages }, status: 200 };
      };
    };
    const reader = new ListReader({ get, redact: (s) => s, warn: () => {}, maxItems: 1_000_000, maxPages: 1_000 });
    const atPage5: { fetched?: number[]; parsed?: number[] } = {};
    let read = 0;
    for await (const _item of reader.read<object>(PATH, "page", { perPage, lookahead: 4 })) {
      read++;
      if (read === 4 * perPage + 1) {
        // Let every page asked for ahead be answered before looking.
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
        atPage5.fetched = [...fetched].sort((a, b) => a - b);
        atPage5.parsed = [...parsed];
      }
    }
    expect(read).toBe(pages * perPage);
    // On page 5: pages 6 to 9 are asked for (answered), but only pages 1 to 5 have been read.
    expect(atPage5).toEqual({ fetched: [1, 2, 3, 4, 5, 6, 7, 8, 9], parsed: [1, 2, 3, 4, 5] });
    expect(parsed).toEqual(Array.from({ length: pages }, (_, i) => i + 1));
  });
});
