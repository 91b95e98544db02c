// Keeps what an audit reports without holding the inventory: counters per kind and the worst `limit`
// findings of each, so memory stays bounded whatever the inventory size.
// Spec: docs/commands/audit.md.
import { compareFindings, type Finding, type InventoryKind, type Severity } from "../inventory/index.js";
import { countOwn } from "../data-record.js";

export const INVENTORY_KINDS: readonly InventoryKind[] = ["script", "connection", "cookie"];

export interface KindSummary {
  read: number;
  findings: number;
  by_severity: Record<Severity, number>;
  /** Scripts only: items without a js_integrity_score (not scored is not malicious). */
  unscored?: number;
  lookalike?: number;
  /** How many findings carry each category, per list (never merged). */
  malicious_domain_categories?: Record<string, number>;
  malicious_url_categories?: Record<string, number>;
}

export function emptyKindSummary(kind: InventoryKind): KindSummary {
  return {
    read: 0,
    findings: 0,
    by_severity: { high: 0, medium: 0, low: 0 },
    ...(kind === "script" ? { unscored: 0 } : {}),
    ...(kind !== "cookie" ? { lookalike: 0, malicious_domain_categories: {}, malicious_url_categories: {} } : {}),
  };
}

export class TopN<T> {
  private readonly items: T[] = [];
  dropped = 0;

  constructor(
    readonly limit: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  add(item: T): void {
    if (this.limit <= 0) {
      this.dropped += 1;
      return;
    }
    const full = this.items.length >= this.limit;
    if (full && this.compare(item, this.items[this.items.length - 1]!) >= 0) {
      this.dropped += 1;
      return;
    }
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.items[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, item);
    if (this.items.length > this.limit) {
      this.items.pop();
      this.dropped += 1;
    }
  }

  values(): readonly T[] {
    return this.items;
  }

  get size(): number {
    return this.items.length;
  }
}

export class AuditCollector {
  readonly summary: Record<InventoryKind, KindSummary>;
  private readonly top: Record<InventoryKind, TopN<Finding>>;

  constructor(readonly limit: number) {
    this.summary = {
      script: emptyKindSummary("script"),
      connection: emptyKindSummary("connection"),
      cookie: emptyKindSummary("cookie"),
    };
    this.top = {
      script: new TopN(limit, compareFindings),
      connection: new TopN(limit, compareFindings),
      cookie: new TopN(limit, compareFindings),
    };
  }

  countRead(kind: InventoryKind, opts: { unscored?: boolean } = {}): void {
    const s = this.summary[kind];
    s.read += 1;
    if (opts.unscored && s.unscored !== undefined) s.unscored += 1;
  }

  add(f: Finding): void {
    const s = this.summary[f.kind];
    s.findings += 1;
    s.by_severity[f.severity] += 1;
    if (f.lookalike && s.lookalike !== undefined) s.lookalike += 1;
    if (s.malicious_domain_categories)
      for (const c of f.malicious_domain_categories) tally(s.malicious_domain_categories, c);
    if (s.malicious_url_categories) for (const c of f.malicious_url_categories) tally(s.malicious_url_categories, c);
    this.top[f.kind].add(f);
  }

  worst(kind: InventoryKind): readonly Finding[] {
    return this.top[kind].values();
  }

  notShown(kind: InventoryKind): number {
    return this.top[kind].dropped;
  }
}

function tally(counts: Record<string, number>, key: string): void {
  countOwn(counts, key);
}
