// `zoneform export`: reads the live zones through the resource kinds' own `read` functions (so export
// and plan see the same thing) and writes them back in the file's shape, section by section. A
// section is all or nothing: a read error fails the export rather than leave a section out unnoticed.
import type { CloudflareClient } from "../cloudflare/types.js";
import { createReadContext } from "../engine/reconcile.js";
import { ApiError, NetworkError, RuntimeError } from "../errors.js";
import type { DesiredState } from "../model/desired.js";
import { exportCustomFields } from "./custom-fields.js";
import { exportCustomHostnames } from "./custom-hostnames.js";
import { renderExport } from "./document.js";
import { exportLogpush } from "./logpush.js";
import { exportPageShield } from "./page-shield.js";
import { EXPORT_SECTIONS, newNotes, type ExportNotes, type ExportSection, type SectionContext } from "./types.js";
import { exportWaf } from "./waf.js";
import { readZoneInfo } from "../resources/zone-info.js";

export { EXPORT_SECTIONS, type ExportSection, type ExportNotes } from "./types.js";

export interface ExportOptions {
  zones: string[];
  sections?: readonly ExportSection[];
  accountId?: string;
  schemaRef: string;
  version: string;
  now?: () => Date;
  /** Called as each section of a zone has been read (progress counters). */
  onSection?: (section: ExportSection) => void;
  /** Called after each zone: zones done so far, of how many. */
  onZoneDone?: (done: number, total: number) => void;
}

export interface ExportResult {
  document: Record<string, unknown>;
  text: string;
  notes: ExportNotes;
}

async function exportZone(ctx: SectionContext, sections: readonly ExportSection[], onSection?: (s: ExportSection) => void): Promise<Record<string, unknown>> {
  const want = (s: ExportSection) => sections.includes(s);
  const read = async <T>(section: ExportSection, fn: () => Promise<T>): Promise<T | undefined> => {
    if (!want(section)) return undefined;
    try {
      const value = await fn();
      onSection?.(section);
      return value;
    } catch (err) {
      if (err instanceof ApiError || err instanceof NetworkError) {
        throw new RuntimeError(`zone ${ctx.zoneId}: reading ${section} failed: ${err.message}\n(leave the section out with --sections if the zone does not have it)`);
      }
      throw err;
    }
  };
  const [pageShield, waf, customFields, logpush, hostnames] = await Promise.all([
    read("page_shield", () => exportPageShield(ctx)),
    read("waf", () => exportWaf(ctx)),
    read("custom_fields", () => exportCustomFields(ctx)),
    read("logpush", () => exportLogpush(ctx)),
    read("custom_hostnames", () => exportCustomHostnames(ctx)),
  ]);
  const info = await readZoneInfo(ctx.read.client, ctx.zoneId);
  const zone: Record<string, unknown> = { zone_id: ctx.zoneId, ...(info?.name ? { name: info.name } : {}) };
  if (pageShield) zone.page_shield = pageShield;
  if (waf && Object.keys(waf).length > 0) zone.waf = waf;
  if (customFields || logpush) {
    zone.logs = {
      ...(customFields ? { custom_fields: customFields } : {}),
      ...(logpush?.prune === false ? { prune: false } : {}),
      ...(logpush ? { logpush_jobs: logpush.jobs } : {}),
    };
  }
  if (hostnames) zone.custom_hostnames = hostnames;
  return zone;
}

export async function exportZones(client: CloudflareClient, opts: ExportOptions): Promise<ExportResult> {
  const sections = opts.sections ?? EXPORT_SECTIONS;
  const notes = newNotes();
  const desired: DesiredState = {
    version: 1,
    ...(opts.accountId ? { account_id: opts.accountId } : {}),
    safety: { max_deletes: 5 },
    zones: opts.zones.map((zone_id) => ({ zone_id })),
    secrets: [],
    files: [],
  };
  const read = createReadContext(client, desired);
  // Zones one after the other: the env variable names given to secrets then do not depend on timing.
  const zones: Record<string, unknown>[] = [];
  for (const zoneId of opts.zones) {
    zones.push(await exportZone({ read, zoneId, notes }, sections, opts.onSection));
    opts.onZoneDone?.(zones.length, opts.zones.length);
  }
  const document: Record<string, unknown> = { version: 1, ...(opts.accountId ? { account_id: opts.accountId } : {}), zones };
  const text = renderExport(
    document,
    { schemaRef: opts.schemaRef, version: opts.version, exportedAt: (opts.now ?? (() => new Date()))(), zones: opts.zones, sections },
    notes,
  );
  return { document, text, notes };
}
