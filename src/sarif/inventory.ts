// `inventory --format sarif`: what the scripts seen on the pages in scope mean for the inventory of
// `--merge FILE` (the check `audit -c` runs, no script detail read), located in FILE. Pure.
// Spec: docs/commands/inventory.md.
import type { ZoneName } from "./log.js";
import { sarifLog, sarifResult, type SarifResult } from "./log.js";
import { inventoryFinding } from "./findings.js";
import { inventoryFilePositions, type ConfigPositions } from "./locate.js";
import {
  checkInventory,
  DEFAULT_STALE_DAYS,
  type SeenScript,
  type AuthorizedScript,
  type ScriptInventory,
  locateInventory,
  readInventory,
} from "../inventory/index.js";
import { applyDefaults } from "../config/index.js";

export const DEFAULT_INVENTORY_CATEGORY = "zoneform/inventory";

export interface InventorySarifInput {
  zone: ZoneName;
  pages: string[];
  scripts: readonly SeenScript[];
  now: Date;
  /** `file` as shown (relative to the working directory), `label` for messages. */
  merge?: { file: string; text: string; label: string };
  version: string;
  category?: string;
}

/** The zone's entries as FILE means them (its `defaults:` included); entries without a url are skipped. */
function authorizedIn(
  merge: NonNullable<InventorySarifInput["merge"]>,
  zone: ZoneName,
): { authorized: AuthorizedScript[]; path: Array<string | number> } {
  const located = locateInventory(merge.text, merge.label, zone, applyDefaults);
  return { authorized: readInventory(located, merge.label).authorized, path: located.path };
}

export function inventorySarif(input: InventorySarifInput): { log: Record<string, unknown>; results: number } {
  let inventory: ScriptInventory = { pages: input.pages, authorized: [] };
  let positions: ConfigPositions | undefined;
  if (input.merge) {
    const { authorized, path } = authorizedIn(input.merge, input.zone);
    inventory = { pages: input.pages, authorized };
    positions = inventoryFilePositions(input.merge.file, input.merge.text, input.zone.id, path);
  }
  const check = checkInventory(inventory, input.scripts, new Map(), { now: input.now, staleDays: DEFAULT_STALE_DAYS });
  const since = input.now.getTime() - DEFAULT_STALE_DAYS * 86_400_000;
  const results: SarifResult[] = [];
  for (const s of input.scripts) {
    if (!s.malicious?.length || (s.last_seen_at && Date.parse(s.last_seen_at) < since)) continue;
    const where = positions?.entryCovering(input.zone.id, s.url);
    results.push(
      sarifResult({
        rule: "malicious-script",
        level: "error",
        message:
          `Malicious script ${s.url} on the pages in ` +
          `scope${s.first_page_url ? ` (first seen on page ${s.first_page_url})` : ""}: ` +
          `${s.malicious.join("; ")}; remove it from the page, do not authorize it.`,
        zone: input.zone,
        subject: s.id !== "" ? s.id : s.url,
        ...(where ? { where } : {}),
        properties: {
          zone_id: input.zone.id,
          kind: "script",
          severity: "high",
          id: s.id,
          subject: s.url,
          ...(s.first_page_url ? { first_page_url: s.first_page_url } : {}),
          ...(s.last_seen_at ? { last_seen_at: s.last_seen_at } : {}),
        },
      }),
    );
  }
  for (const f of check.findings) results.push(sarifResult(inventoryFinding(input.zone, f, positions)));
  const log = sarifLog({
    version: input.version,
    category: input.category ?? DEFAULT_INVENTORY_CATEGORY,
    results,
    properties: {
      zone_id: input.zone.id,
      pages: input.pages,
      stale_days: DEFAULT_STALE_DAYS,
      scripts_seen: input.scripts.length,
      authorized: inventory.authorized.length,
    },
  });
  return { log, results: results.length };
}
