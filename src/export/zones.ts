// `zoneform export`: reads the live zones through the resource kinds' own `read` functions.
import { NO_SECRETS } from "../secrets/index.js";
import type { CloudflareClient } from "../cloudflare/index.js";
import { createReadContext } from "../engine/index.js";
import { ApiError, NetworkError, RuntimeError } from "../errors.js";
import { shareDefaults } from "./defaults.js";
import { renderExport } from "./document.js";
import { readZoneInfo, type DesiredState, SECTIONS } from "../sections/index.js";
import {
  EXPORT_SECTIONS,
  exportSectionNamed,
  escapeTemplates,
  newNotes,
  type ExportNotes,
  type ExportSection,
  type SectionContext,
} from "./types.js";

export interface ExportOptions {
  zones: string[];
  /** Accounts whose own objects (account-level Logpush jobs) are written as entries of `accounts:`. */
  accounts?: string[];
  sections?: readonly ExportSection[];
  accountId?: string;
  /** The `$schema` reference for editors (see src/cli/schema-ref.ts); none, no such line. */
  schemaRef?: string | undefined;
  version: string;
  now?: () => Date;
  /** Called as each section of a zone has been read (progress counters). */
  onSection?: (section: ExportSection) => void;
  /** Called after each zone: zones done so far, of how many. */
  onZoneDone?: (done: number, total: number) => void;
  /** Write what every zone shares once, in `defaults:` (./defaults.ts); two zones or more. */
  defaults?: boolean;
}

export interface ExportResult {
  document: Record<string, unknown>;
  text: string;
  notes: ExportNotes;
}

async function exportZone(
  ctx: SectionContext,
  sections: readonly ExportSection[],
  onSection?: (s: ExportSection) => void,
): Promise<Record<string, unknown>> {
  const wanted = SECTIONS.filter((s) => sections.includes(s.name));
  // Sections read at once; merged in the registry's (the file's) order.
  const parts = await Promise.all(
    wanted.map(async (section) => {
      try {
        const part = await section.export(ctx);
        onSection?.(section.name);
        return part;
      } catch (err) {
        if (err instanceof ApiError || err instanceof NetworkError) {
          throw new RuntimeError(
            `zone ${ctx.zoneId}: reading ${section.name} failed: ${err.message}\n(leave the section out ` +
              `with --sections if the zone does not have it)`,
          );
        }
        throw err;
      }
    }),
  );
  const info = await readZoneInfo(ctx.read.client, ctx.zoneId);
  const zone: Record<string, unknown> = { zone_id: ctx.zoneId, ...(info?.name ? { name: info.name } : {}) };
  for (const part of parts) if (part) mergeInto(zone, part);
  return escapeTemplates(zone);
}

async function exportAccount(
  ctx: SectionContext,
  sections: readonly ExportSection[],
  onSection?: (s: ExportSection) => void,
): Promise<Record<string, unknown>> {
  const wanted = SECTIONS.filter((s) => s.account && sections.includes(s.name));
  const parts = await Promise.all(
    wanted.map(async (section) => {
      try {
        const part = await section.account!.export(ctx);
        onSection?.(section.name);
        return part;
      } catch (err) {
        if (err instanceof ApiError || err instanceof NetworkError) {
          throw new RuntimeError(
            `account ${ctx.zoneId}: reading ${section.name} failed: ${err.message}\n(leave the section out ` +
              `with --sections if the account does not have it)`,
          );
        }
        throw err;
      }
    }),
  );
  const entry: Record<string, unknown> = { account_id: ctx.zoneId };
  for (const part of parts) if (part) mergeInto(entry, part);
  // A list that left something out keeps it with prune: false, which the entry holds for all its lists.
  if (entry.prune !== false) delete entry.prune;
  const { account_id, prune, ...lists } = entry;
  return escapeTemplates({ account_id, ...(prune === false ? { prune } : {}), ...lists });
}

function mergeInto(target: Record<string, unknown>, part: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(part)) {
    const have = Object.hasOwn(target, key) ? target[key] : undefined;
    if (isPlainObject(have) && isPlainObject(value)) mergeInto(have, value);
    else target[key] = value;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export async function exportZones(client: CloudflareClient, opts: ExportOptions): Promise<ExportResult> {
  const sections = opts.sections?.map((s) => exportSectionNamed(s) ?? s) ?? EXPORT_SECTIONS;
  const notes = newNotes();
  const desired: DesiredState = {
    version: 1,
    ...(opts.accountId ? { account_id: opts.accountId } : {}),
    safety: { max_deletes: 5 },
    zones: opts.zones.map((zone_id) => ({ zone_id })),
    secrets: NO_SECRETS,
    files: [],
  };
  const read = createReadContext(client, desired);
  // Zones one after the other: the env variable names given to secrets then do not depend on timing.
  const zones: Record<string, unknown>[] = [];
  for (const zoneId of opts.zones) {
    zones.push(await exportZone({ read, zoneId, notes }, sections, opts.onSection));
    opts.onZoneDone?.(zones.length, opts.zones.length);
  }
  const accounts: Record<string, unknown>[] = [];
  for (const accountId of opts.accounts ?? []) {
    accounts.push(await exportAccount({ read, zoneId: accountId, scope: "account", notes }, sections, opts.onSection));
  }
  if (accounts.length > 0) {
    notes.remarks.push(
      "accounts: calls go with CLOUDFLARE_API_TOKEN; give an entry api_token: ${env:NAME} for a token of " +
        "its own (docs/configuration.md#accounts).",
    );
  }
  const shared = opts.defaults ? shareDefaults(zones) : { zones };
  if (shared.defaults) {
    notes.remarks.push(
      "defaults: what every zone shares, merged into each zone (a zone's own keys win; " +
        "docs/configuration.md#defaults).",
    );
  }
  const document: Record<string, unknown> = {
    version: 1,
    ...(opts.accountId ? { account_id: opts.accountId } : {}),
    ...(accounts.length > 0 ? { accounts } : {}),
    ...(shared.defaults ? { defaults: shared.defaults } : {}),
    zones: shared.zones,
  };
  const text = renderExport(
    document,
    {
      schemaRef: opts.schemaRef,
      version: opts.version,
      exportedAt: (opts.now ?? (() => new Date()))(),
      zones: opts.zones,
      ...(accounts.length > 0 ? { accounts: opts.accounts } : {}),
      sections,
    },
    notes,
  );
  return { document, text, notes };
}
