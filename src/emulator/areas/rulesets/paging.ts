// Cursor pagination of ruleset lists.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import { ApiFault } from "../../types.js";

const RULESETS_PER_PAGE = { min: 1, max: 100, default: 50 } as const;

/**
 * Without `cursor` or `per_page` the whole list comes back with no `result_info`, as the recorded zone list
 * answers; with either, a cursor page as the 2026 SDK reads it.
 */
export function paginateByCursor<T>(
  items: readonly T[],
  query: URLSearchParams,
): { result: T[]; result_info?: Record<string, unknown> } {
  if (!query.has("cursor") && !query.has("per_page")) return { result: [...items] };
  const perPageRaw = query.get("per_page");
  const perPage = perPageRaw === null || perPageRaw === "" ? RULESETS_PER_PAGE.default : Number(perPageRaw);
  if (!Number.isInteger(perPage) || perPage < RULESETS_PER_PAGE.min || perPage > RULESETS_PER_PAGE.max) {
    throw badQuery(
      `per_page must be an integer between ${RULESETS_PER_PAGE.min} and ${RULESETS_PER_PAGE.max}, got ` +
        `${JSON.stringify(perPageRaw)}`,
    );
  }
  const start = decodeCursor(query.get("cursor"));
  const result = items.slice(start, start + perPage);
  const next = start + perPage < items.length ? encodeCursor(start + perPage) : "";
  return { result, result_info: { cursor: next, per_page: perPage, count: result.length } };
}

function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString("base64url");
}

function decodeCursor(raw: string | null): number {
  if (raw === null || raw === "") return 0;
  const match = /^offset:(\d+)$/.exec(Buffer.from(raw, "base64url").toString());
  if (!match) throw badQuery(`cursor ${JSON.stringify(raw)} is not a cursor this API returned`);
  return Number(match[1]);
}

function badQuery(message: string): ApiFault {
  return new ApiFault(400, [{ code: 20021, message, source: { pointer: "/" } }]);
}
