// Runs a Page Shield audit: pages through a zone's scripts, connections and cookies, classifies each,
// streams findings to the renderer and keeps only counters and the worst `limit` per kind.
// Spec: docs/commands/audit.md. Used by `zoneform audit` and by the benchmark.
import type { CloudflareClient } from "../cloudflare/index.js";
import {
  classify,
  MALICIOUS_SCORE_THRESHOLD,
  scoreOf,
  THREAT_SCORE_THRESHOLD,
  type InventoryKind,
  type InventoryCheck,
  auditInventory,
  inventoryQuery,
  hostReferences,
  LookalikeJudge,
  lookalikeFinding,
  type ScriptInventory,
  DEFAULT_PAGE_TIMEOUT_MS,
  PageFetcher,
} from "../inventory/index.js";
import { AuditCollector, INVENTORY_KINDS } from "./collector.js";
import {
  createRenderer,
  teeRenderer,
  type AuditFilters,
  type AuditFormat,
  type AuditRenderer,
  type AuditTotals,
  type Redact,
} from "./renderers.js";
import type { AuditProvenance, ConfigFileProvenance, OverallResult, ZoneScope } from "./renderer-contract.js";
import { DEFAULT_FAIL_ON, overallResult, totalsOf, type FailOn, type ZoneCounts } from "./result.js";

export { DEFAULT_FAIL_ON, parseFailOn, shouldFail, totalsOf, type FailOn } from "./result.js";
import type { SarifAuditOptions } from "./sarif.js";
import {
  pageShieldApiPath,
  readNotificationPolicies,
  type DesiredPolicy,
  type LiveNotification,
} from "../sections/index.js";
import { ApiError, NetworkError } from "../errors.js";
import { checkAlerting, type AlertingCheck } from "./alerting.js";
import { checkPageHeaders, type HeaderCheck } from "./headers.js";

const AUDIT_PER_PAGE = 100;
export const DEFAULT_AUDIT_LIMIT = 50;

export interface ZoneInventory {
  inventory: ScriptInventory;
  policies?: readonly DesiredPolicy[];
  zone_name?: string;
  source?: string;
}

export interface AuditOptions {
  status?: string[];
  hosts?: string[];
  pageUrls?: string[];
  format?: AuditFormat;
  limit?: number;
  maliciousBelow?: number;
  threatBelow?: number;
  perPage?: number;
  now?: () => Date;
  progress?: (line: string) => void;
  onItem?: (kind: InventoryKind) => void;
  onZoneDone?: (done: number, total: number) => void;
  inventories?: ReadonlyMap<string, ZoneInventory>;
  staleDays?: number;
  sarif?: SarifAuditOptions;
  width?: number;
  redact?: Redact;
  pageTimeoutMs?: number;
  pageUserAgent?: string;
  /** Also fetch non-public addresses, for a test's own server or the emulator (default false). */
  allowPrivateAddresses?: boolean;
  /** Zone id → account id: each account's notification policies are read once, with its token. */
  accounts?: ReadonlyMap<string, string>;
  failOn?: readonly FailOn[];
  provenance?: RunProvenance;
  record?: (text: string) => void;
}

interface RunProvenance {
  zoneform_version: string;
  files?: readonly ConfigFileProvenance[];
  zoneNames?: ReadonlyMap<string, string>;
}

type ZoneAudit = ZoneCounts;

export interface AuditResult {
  zones: ZoneAudit[];
  totals: AuditTotals;
  result: OverallResult;
}

/** Pages requested ahead while auditing; each holds at most AUDIT_PER_PAGE items. */
const AUDIT_LOOKAHEAD = 4;

const LIST_PATH: Record<InventoryKind, string> = { script: "scripts", connection: "connections", cookie: "cookies" };

export function auditFilters(opts: AuditOptions): AuditFilters {
  return {
    ...(opts.status?.length ? { status: opts.status } : {}),
    ...(opts.hosts?.length ? { hosts: opts.hosts } : {}),
    ...(opts.pageUrls?.length ? { page_url: opts.pageUrls } : {}),
    malicious_below: opts.maliciousBelow ?? MALICIOUS_SCORE_THRESHOLD,
    threat_below: opts.threatBelow ?? THREAT_SCORE_THRESHOLD,
  };
}

function listQuery(kind: InventoryKind, filters: AuditFilters): Record<string, string> {
  const q: Record<string, string> = {};
  if (filters.status && kind !== "cookie") q.status = filters.status.join(",");
  if (filters.hosts) q.hosts = filters.hosts.join(",");
  if (filters.page_url) q.page_url = filters.page_url.join(",");
  return q;
}

/** Throws the client's ApiError / NetworkError; JSON and CSV already written stay written. */
export async function runAudit(
  client: CloudflareClient,
  zoneIds: string | string[],
  opts: AuditOptions,
  write: (text: string) => void,
): Promise<AuditResult> {
  const zones = Array.isArray(zoneIds) ? zoneIds : [zoneIds];
  const filters = auditFilters(opts);
  const shared = { now: opts.now, ...(opts.redact ? { redact: opts.redact } : {}) };
  const report = createRenderer(opts.format ?? "text", write, {
    ...shared,
    ...(opts.sarif ? { sarif: opts.sarif } : {}),
    width: opts.width,
  });
  const renderer = opts.record ? teeRenderer(report, createRenderer("json", opts.record, shared)) : report;
  const limit = opts.limit ?? DEFAULT_AUDIT_LIMIT;
  const results: ZoneAudit[] = [];
  const pageTimeoutMs = opts.pageTimeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS;
  // Its own connections, apart from the client's: the pages never see the API token.
  const fetcher = zones.some((z) => opts.inventories?.get(z)?.inventory.headers)
    ? new PageFetcher({
        timeoutMs: pageTimeoutMs,
        allowPrivateAddresses: opts.allowPrivateAddresses === true,
        ...(opts.pageUserAgent ? { userAgent: opts.pageUserAgent } : {}),
      })
    : undefined;
  // Each account's notification policies, read once for all its zones; an API error is the evidence's.
  const policies = new Map<string, Promise<LiveNotification[] | Error>>();
  try {
    renderer.begin(provenanceOf(zones, opts));
    for (const zoneId of zones) {
      results.push(
        await auditZone(client, zoneId, opts, { renderer, filters, limit, fetcher, pageTimeoutMs, policies }),
      );
      opts.onZoneDone?.(results.length, zones.length);
    }
  } finally {
    await fetcher?.close();
  }
  const totals = totalsOf(results);
  const result = overallResult(totals, opts.failOn ?? DEFAULT_FAIL_ON);
  renderer.end(totals, result);
  return { zones: results, totals, result };
}

function provenanceOf(zones: readonly string[], opts: AuditOptions): AuditProvenance {
  const scope = zones.map((zone_id): ZoneScope => {
    const declared = opts.inventories?.get(zone_id);
    const name = opts.provenance?.zoneNames?.get(zone_id) ?? declared?.zone_name;
    const urls = declared?.inventory.headers?.urls;
    return {
      zone_id,
      ...(name !== undefined ? { name } : {}),
      ...(declared ? { pages: [...declared.inventory.pages] } : {}),
      ...(urls ? { header_urls: [...urls] } : {}),
    };
  });
  return {
    zoneform_version: opts.provenance?.zoneform_version ?? "unknown",
    files: [...(opts.provenance?.files ?? [])],
    run_at: (opts.now ?? (() => new Date()))().toISOString(),
    zones: scope,
  };
}

interface ZoneContext {
  renderer: AuditRenderer;
  filters: AuditFilters;
  limit: number;
  fetcher: PageFetcher | undefined;
  pageTimeoutMs: number;
  policies: Map<string, Promise<LiveNotification[] | Error>>;
}

function policiesOf(
  client: CloudflareClient,
  accountId: string,
  ctx: ZoneContext,
): Promise<LiveNotification[] | Error> {
  let read = ctx.policies.get(accountId);
  if (!read) {
    read = readNotificationPolicies(client, accountId).catch((err: unknown) => {
      if (err instanceof ApiError || err instanceof NetworkError) return err;
      throw err;
    });
    ctx.policies.set(accountId, read);
  }
  return read;
}

async function auditZone(
  client: CloudflareClient,
  zoneId: string,
  opts: AuditOptions,
  ctx: ZoneContext,
): Promise<ZoneAudit> {
  const { renderer, filters, limit } = ctx;
  const collector = new AuditCollector(limit);
  const declared = opts.inventories?.get(zoneId);
  // Look-alikes of the zone's authorized hosts and pages, of each item's page host, of well-known hosts.
  const judge = new LookalikeJudge(
    hostReferences({
      authorized: declared?.inventory.authorized.map((a) => a.url) ?? [],
      pages: declared?.inventory.pages ?? [],
    }),
  );
  renderer.zoneStart(zoneId, filters);
  for (const kind of INVENTORY_KINDS) {
    const path = pageShieldApiPath(zoneId, LIST_PATH[kind]);
    const items = client.paginate<Record<string, unknown>>(path, {
      query: listQuery(kind, filters),
      perPage: opts.perPage ?? AUDIT_PER_PAGE,
      // A few pages in flight ahead of the one being classified: memory stays flat, time drops.
      lookahead: AUDIT_LOOKAHEAD,
    });
    for await (const raw of items) {
      collector.countRead(kind, { unscored: kind === "script" && scoreOf(raw.js_integrity_score) === null });
      opts.onItem?.(kind);
      const finding = classify(kind, raw, { js_integrity: filters.malicious_below, threat: filters.threat_below });
      const lookalike = kind === "cookie" ? undefined : lookalikeFinding(kind, raw, judge);
      for (const f of [finding, lookalike]) {
        if (!f) continue;
        collector.add(f);
        renderer.finding(zoneId, f);
      }
    }
  }
  let inventory: InventoryCheck | undefined;
  if (declared) {
    const now = (opts.now ?? (() => new Date()))();
    inventory = await auditInventory(client, zoneId, declared.inventory, {
      now,
      staleDays: opts.staleDays,
      perPage: opts.perPage,
    });
    renderer.inventory(zoneId, inventory, {
      checked_at: now.toISOString(),
      ...(declared.zone_name ? { zone_name: declared.zone_name } : {}),
      ...(declared.source ? { source: declared.source } : {}),
      query: inventoryQuery(declared.inventory.pages),
    });
  }
  let headers: HeaderCheck | undefined;
  const pages = declared?.inventory.headers;
  if (pages && ctx.fetcher) {
    const answers = await ctx.fetcher.fetchAll(pages.urls);
    headers = checkPageHeaders(pages, answers, {
      ...(declared.policies ? { policies: declared.policies } : {}),
      timeoutMs: ctx.pageTimeoutMs,
    });
    renderer.headers(zoneId, headers, {
      checked_at: (opts.now ?? (() => new Date()))().toISOString(),
      pinned_values: pages.pinned,
      ...(declared.zone_name ? { zone_name: declared.zone_name } : {}),
      ...(declared.source ? { source: declared.source } : {}),
    });
  }
  let alerting: AlertingCheck | undefined;
  const accountId = opts.accounts?.get(zoneId);
  if (accountId !== undefined) {
    alerting = checkAlerting(zoneId, accountId, await policiesOf(client, accountId, ctx));
    renderer.alerting(zoneId, alerting, {
      checked_at: (opts.now ?? (() => new Date()))().toISOString(),
      ...(declared?.zone_name ? { zone_name: declared.zone_name } : {}),
    });
  }
  renderer.zoneEnd(zoneId, collector);
  opts.progress?.(
    `audited ${zoneId}: ${INVENTORY_KINDS.map((k) => `${collector.summary[k].read} ${LIST_PATH[k]}`).join(", ")}` +
      `${headers ? `, ${headers.pages.length} payment page(s) fetched` : ""}`,
  );
  return {
    zone_id: zoneId,
    summary: collector.summary,
    ...(inventory ? { inventory } : {}),
    ...(headers ? { headers } : {}),
    ...(alerting ? { alerting } : {}),
  };
}
