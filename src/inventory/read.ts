// Reads what Page Shield saw on a zone's in-scope pages: one paged list, then only the details needed.
// Spec: docs/pci-script-inventory.md.
import { classifyScript } from "./classify.js";
import type { CloudflareClient } from "../cloudflare/index.js";
import {
  checkInventory,
  scriptsNeedingDetail,
  type InventoryCheck,
  type ScriptDetail,
  type SeenScript,
} from "./check.js";
import type { ScriptInventory } from "./types.js";
import { pageShieldApiPath } from "../sections/index.js";

const INVENTORY_PER_PAGE = 100;
/** Every status: a script seen long ago still says when an authorization was last used. */
const INVENTORY_STATUSES = ["active", "infrequent", "inactive"];

export function inventoryQuery(
  pages: readonly string[],
  statuses: readonly string[] = INVENTORY_STATUSES,
): Record<string, string> {
  return { page_url: pages.join(","), status: statuses.join(",") };
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

export function seenScriptOf(raw: Record<string, unknown>): SeenScript {
  const s: SeenScript = { id: String(raw.id ?? ""), url: str(raw.url) ?? "" };
  if (typeof raw.hash === "string" || raw.hash === null) s.hash = raw.hash as string | null;
  if (typeof raw.fetched_at === "string" || raw.fetched_at === null) s.fetched_at = raw.fetched_at as string | null;
  for (const k of ["first_seen_at", "last_seen_at", "status", "first_page_url"] as const) {
    const v = str(raw[k]);
    if (v !== undefined) s[k] = v;
  }
  const finding = classifyScript(raw);
  if (finding) s.malicious = finding.reasons;
  return s;
}

function scriptDetailOf(raw: Record<string, unknown>): ScriptDetail {
  const versions = Array.isArray(raw.versions) ? (raw.versions as Array<Record<string, unknown>>) : [];
  return {
    ...(typeof raw.hash === "string" ? { hash: raw.hash } : {}),
    ...(typeof raw.fetched_at === "string" ? { fetched_at: raw.fetched_at } : {}),
    versions: versions
      .filter((v) => v !== null && typeof v === "object")
      .map((v) => ({
        hash: str(v.hash) ?? null,
        fetched_at: str(v.fetched_at) ?? null,
        ...(typeof v.js_integrity_score === "number" ? { js_integrity_score: v.js_integrity_score } : {}),
      })),
    page_urls: Array.isArray(raw.page_urls) ? raw.page_urls.filter((p): p is string => typeof p === "string") : [],
  };
}

export async function listInScopeScripts(
  client: CloudflareClient,
  zoneId: string,
  pages: readonly string[],
  perPage = INVENTORY_PER_PAGE,
): Promise<SeenScript[]> {
  const out: SeenScript[] = [];
  for await (const raw of client.paginate<Record<string, unknown>>(pageShieldApiPath(zoneId, "scripts"), {
    query: inventoryQuery(pages),
    perPage,
  })) {
    out.push(seenScriptOf(raw));
  }
  return out;
}

async function readScriptDetails(
  client: CloudflareClient,
  zoneId: string,
  ids: readonly string[],
): Promise<Map<string, ScriptDetail>> {
  const entries = await Promise.all(
    ids.map(
      async (id) =>
        [
          id,
          scriptDetailOf(
            await client.request<Record<string, unknown>>("GET", pageShieldApiPath(zoneId, `scripts/${id}`)),
          ),
        ] as const,
    ),
  );
  return new Map(entries);
}

export async function auditInventory(
  client: CloudflareClient,
  zoneId: string,
  inventory: ScriptInventory,
  opts: { now: Date; staleDays?: number; perPage?: number },
): Promise<InventoryCheck> {
  const scripts = await listInScopeScripts(client, zoneId, inventory.pages, opts.perPage);
  const ids = scriptsNeedingDetail(inventory, scripts, opts.now, opts.staleDays);
  const details = await readScriptDetails(client, zoneId, [...new Set(ids)]);
  return checkInventory(inventory, scripts, details, opts);
}
