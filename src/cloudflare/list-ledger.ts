// What one list read has been answered so far: items by id (a twin folded with a warning, a different one
// stops the read; only id, page and digest kept), pages by their items (a list going round), the item cap
// and result_info's totals. Spec: docs/commands/README.md, Lists.
import { createHash, hash } from "node:crypto";
import { canonicalJson } from "../canonical-json.js";
import { AnswerShapeError, ApiError } from "../errors.js";
import type { Envelope } from "./types.js";

export function listError(message: string, shownPath: string): ApiError {
  return new ApiError(message, { status: 200, method: "GET", path: shownPath, errors: [], retryable: false });
}

export function listOf<T>(env: Envelope<unknown>, method: string, shownPath: () => string): T[] {
  if (Array.isArray(env.result)) return env.result as T[];
  const path = shownPath();
  throw new ApiError(
    `${method} ${path}: expected a list in the answer's "result", got ` +
      `${env.result === null ? "null" : typeof env.result}`,
    {
      status: env.status,
      method,
      path,
      errors: [],
      retryable: false,
    },
  );
}

export interface Totals {
  pages?: number;
  count?: number;
}

export function totalsOf(info: Record<string, unknown> | undefined, asked: number | undefined): Totals {
  if (!info) return {};
  const count = num(info.total_count);
  const size = num(info.per_page) ?? asked;
  const pages =
    num(info.total_pages) ??
    (count !== undefined && size !== undefined && size > 0 ? Math.ceil(count / size) : undefined);
  return { ...(pages !== undefined ? { pages } : {}), ...(count !== undefined ? { count } : {}) };
}

export function morePages(page: number, t: Totals, received: number): boolean {
  return (t.pages !== undefined && page < t.pages) || (t.count !== undefined && received < t.count);
}

export function emptyTooSoon(
  page: number,
  t: Totals,
  received: number,
  style: "page" | "cursor" | undefined,
  info: Record<string, unknown> | undefined,
): boolean {
  if (typeof info?.cursor === "string" && info.cursor !== "") return true;
  if (style === "cursor") return false;
  return morePages(page, t, received);
}

export function describeTotals(t: Totals, received: number): string {
  const parts = [
    t.pages !== undefined ? `total_pages ${t.pages}` : "",
    t.count !== undefined ? `total_count ${t.count}` : "",
    `${received} read so far`,
  ];
  return parts.filter(Boolean).join(", ");
}

export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

const DIGEST_BYTES = 16;
const FIRST_ROOM = 1024;

export class ItemLedger {
  private readonly slots = new Map<string | number, number>();
  private pages = new Float64Array(FIRST_ROOM);
  private digests = new Uint8Array(FIRST_ROOM * DIGEST_BYTES);
  private readonly warned = new Set<string | number>();
  private count = 0;
  constructor(
    private readonly path: string,
    private readonly redact: (s: string) => string,
    private readonly warn: (line: string) => void,
    private readonly max: number,
  ) {}

  admit(item: unknown, page: number): boolean {
    const id = item !== null && typeof item === "object" && "id" in item ? (item as { id: unknown }).id : undefined;
    if (typeof id !== "string" && typeof id !== "number") return this.counted();
    // One object answered twice compares equal whatever its key order. As "binary", one character a byte.
    const digest = hash("sha256", canonicalJson(item), "binary");
    const slot = this.slots.get(id);
    if (slot === undefined) {
      this.remember(id, page, digest);
      return this.counted();
    }
    const firstPage = this.pages[slot]!;
    const where = firstPage === page ? `twice on page ${page}` : `on pages ${firstPage} and ${page}`;
    if (!this.sameDigest(slot, digest)) {
      throw new AnswerShapeError(
        `GET ${this.redact(this.path)}: the list holds id ${JSON.stringify(id)} ${where} with different content; ` +
          "zoneform cannot tell which is live, so it stopped this zone and changed nothing; try again later",
      );
    }
    if (!this.warned.has(id)) {
      this.warned.add(id);
      this.warn(
        `warning: GET ${this.path}: the list holds id ${JSON.stringify(id)} ${where} with the same content ` +
          `(a paging overlap); read once`,
      );
    }
    return false;
  }

  get size(): number {
    return this.slots.size;
  }

  get arrayBytes(): number {
    return this.pages.byteLength + this.digests.byteLength;
  }

  private remember(id: string | number, page: number, digest: string): void {
    const slot = this.slots.size;
    if (slot === this.pages.length) {
      const pages = new Float64Array(slot * 2);
      pages.set(this.pages);
      this.pages = pages;
      const digests = new Uint8Array(slot * 2 * DIGEST_BYTES);
      digests.set(this.digests);
      this.digests = digests;
    }
    this.slots.set(id, slot);
    this.pages[slot] = page;
    const at = slot * DIGEST_BYTES;
    for (let i = 0; i < DIGEST_BYTES; i++) this.digests[at + i] = digest.charCodeAt(i);
  }

  private sameDigest(slot: number, digest: string): boolean {
    const at = slot * DIGEST_BYTES;
    for (let i = 0; i < DIGEST_BYTES; i++) if (this.digests[at + i] !== digest.charCodeAt(i)) return false;
    return true;
  }

  private counted(): boolean {
    if (++this.count > this.max) {
      throw listError(
        `GET ${this.redact(this.path)}: the list went on past ${this.max} items (the item cap, ` +
          `--max-list-items); stopping, and nothing was changed. If the zone really holds that many, ` +
          `raise the cap`,
        this.redact(this.path),
      );
    }
    return true;
  }
}

export class PageLedger {
  private readonly seen = new Map<string, number>();

  repeats(items: unknown[], page: number): number | undefined {
    if (items.length === 0) return undefined;
    const signature = createHash("sha256").update(pageSignature(items)).digest("base64");
    const earlier = this.seen.get(signature);
    if (earlier !== undefined) return earlier;
    this.seen.set(signature, page);
    return undefined;
  }
}

function pageSignature(items: unknown[]): string {
  return items
    .map((i) =>
      i && typeof i === "object" && "id" in i ? JSON.stringify((i as { id: unknown }).id) : JSON.stringify(i),
    )
    .join("\u0000");
}
