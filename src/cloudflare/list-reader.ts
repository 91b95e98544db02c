// The one strict reader of lists (paginate, paginateCursor, listAll): read to the end by its totals, an
// empty page asked once more, duplicates judged by list-ledger.ts, caps end a runaway list.
// Spec: docs/commands/README.md, Lists.
import type { Envelope, RequestOptions } from "./types.js";
import {
  ItemLedger,
  PageLedger,
  describeTotals,
  emptyTooSoon,
  listError,
  listOf,
  morePages,
  num,
  totalsOf,
  type Totals,
} from "./list-ledger.js";

type Query = RequestOptions["query"];

const DEFAULT_PER_PAGE = 50;

export const DEFAULT_MAX_LIST_ITEMS = 500_000;
export const DEFAULT_MAX_LIST_PAGES = 20_000;

export interface ListReadOptions {
  query?: Query;
  perPage?: number;
  lookahead?: number;
}

export interface ListReaderOptions {
  get: (path: string, query: Query) => Promise<() => Envelope<unknown>>;
  redact: (text: string) => string;
  warn: (line: string) => void;
  maxItems: number;
  maxPages: number;
}

export type ListMode = "page" | "cursor" | "auto";

export class ListReader {
  constructor(private readonly o: ListReaderOptions) {}

  async *read<T>(path: string, mode: ListMode, po: ListReadOptions): AsyncGenerator<T> {
    const { maxPages, redact } = this.o;
    const lookahead = mode === "page" ? Math.max(0, Math.floor(po.lookahead ?? 0)) : 0;
    let style: "page" | "cursor" | undefined = mode === "auto" ? undefined : mode;
    let pageSize: number | undefined = mode === "page" ? (po.perPage ?? DEFAULT_PER_PAGE) : po.perPage;
    let cursor: string | undefined;
    const queryOf = (page: number): Query => {
      if (page === 1 && mode === "auto" && po.perPage === undefined) return po.query;
      if (style === "cursor" || (page === 1 && mode === "cursor")) return { ...po.query, per_page: pageSize, cursor };
      return { ...po.query, page, per_page: pageSize };
    };
    const ahead = new Map<number, Promise<() => Envelope<unknown>>>();
    const fetchPage = (page: number) => {
      const pending = this.o.get(path, queryOf(page));
      // A page abandoned because the list ended early must not surface as an unhandled rejection.
      pending.catch(() => undefined);
      return pending;
    };
    const pages = new PageLedger();
    const seenCursors = new Set<string>();
    const items = new ItemLedger(path, redact, this.o.warn, this.o.maxItems);
    // Items answered, duplicates included: what the API's total_count counts.
    let received = 0;
    for (let page = 1; ; page++) {
      if (page > maxPages)
        throw this.endless(
          path,
          `the list went on past ${maxPages} pages without an end (the page cap, --max-list-pages)`,
        );
      const first = (await (ahead.get(page) ?? fetchPage(page)))();
      ahead.delete(page);
      const again = () => fetchPage(page);
      const { env, list, totals } = await this.pageOf<T>(path, page, first, { again, pageSize, received, style });
      // A list that ignores `page` (or a cursor) answers the same items again: read forever otherwise.
      const earlier = pages.repeats(list, page);
      if (earlier !== undefined) {
        const why = style === "cursor" ? "" : " (the list ignores paging)";
        throw this.endless(path, `page ${page} holds the same items as page ${earlier}${why}`);
      }
      // Ahead: at most `lookahead` pages, never past the last announced; each waits as bytes until its turn.
      if (style === "page" && totals.pages !== undefined) {
        for (let next = page + 1; next <= Math.min(totals.pages, page + lookahead, maxPages); next++) {
          if (!ahead.has(next)) ahead.set(next, fetchPage(next));
        }
      }
      received += list.length;
      for (const item of list) if (items.admit(item, page)) yield item;
      const info = env.result_info;
      const next = typeof info?.cursor === "string" && info.cursor !== "" ? info.cursor : undefined;
      if (style === undefined) {
        // The first answer of an `auto` read says how the list goes on.
        if (next !== undefined) style = "cursor";
        else if (
          info !== undefined &&
          (morePages(page, totals, received) ||
            (totals.pages === undefined &&
              totals.count === undefined &&
              po.perPage !== undefined &&
              list.length >= po.perPage))
        ) {
          style = "page";
          pageSize = num(info.per_page) ?? po.perPage;
        } else return;
      }
      if (style === "cursor") {
        if (list.length === 0 || next === undefined) return;
        if (seenCursors.has(next)) throw this.endless(path, "the API returned the same page cursor twice");
        seenCursors.add(next);
        cursor = next;
        continue;
      }
      if (totals.pages === undefined && totals.count === undefined) {
        // No totals: a full page asks for the next, a short or empty one ends the list.
        if (list.length === 0 || list.length < (pageSize ?? DEFAULT_PER_PAGE)) return;
      } else if (!morePages(page, totals, received)) {
        return;
      }
    }
  }

  /** A page's items and totals; an empty page where the totals promised items is asked once more. */
  private async pageOf<T>(
    path: string,
    page: number,
    first: Envelope<unknown>,
    o: {
      again: () => Promise<() => Envelope<unknown>>;
      pageSize?: number;
      received: number;
      style?: "page" | "cursor";
    },
  ): Promise<{ env: Envelope<unknown>; list: T[]; totals: Totals }> {
    const { redact } = this.o;
    const read = (env: Envelope<unknown>) => {
      const list = listOf<T>(env, "GET", () => redact(path));
      const totals = totalsOf(env.result_info, o.pageSize);
      this.checkAnnounced(path, totals);
      return { env, list, totals };
    };
    const tooSoon = (a: ReturnType<typeof read>) =>
      a.list.length === 0 && emptyTooSoon(page, a.totals, o.received, o.style, a.env.result_info);
    const answer = read(first);
    if (!tooSoon(answer)) return answer;
    this.o.warn(
      `warning: GET ${path}: page ${page} came back empty although the list announced more ` +
        `(${describeTotals(answer.totals, o.received)}); asking for it once more`,
    );
    const second = read((await o.again())());
    if (!tooSoon(second)) return second;
    throw listError(
      `GET ${redact(path)}: page ${page} came back empty twice although the list announced more ` +
        `(${describeTotals(second.totals, o.received)}); the list could not be read whole, so nothing was changed; ` +
        "try again later",
      redact(path),
    );
  }

  private checkAnnounced(path: string, t: Totals): void {
    const { maxPages, maxItems } = this.o;
    if (t.pages !== undefined && t.pages > maxPages) {
      throw this.tooLong(
        path,
        `announces ${t.pages} pages, more than the ${maxPages} zoneform reads at most (--max-list-pages)`,
      );
    }
    if (t.count !== undefined && t.count > maxItems) {
      throw this.tooLong(
        path,
        `announces ${t.count} items, more than the ${maxItems} zoneform reads at most (--max-list-items)`,
      );
    }
  }

  private tooLong(path: string, why: string) {
    const shown = this.o.redact(path);
    return listError(
      `GET ${shown}: the list ${why}; stopping before reading it, and nothing was changed. If the ` +
        "zone really holds that many, raise the cap",
      shown,
    );
  }

  private endless(path: string, why: string) {
    const shown = this.o.redact(path);
    return listError(`GET ${shown}: ${why}; stopping so the list is not read forever, and nothing was changed`, shown);
  }
}
