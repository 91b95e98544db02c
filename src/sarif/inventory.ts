// `inventory --format sarif`: instead of a draft, what the scripts seen on the pages in scope mean for the
// inventory of `--merge FILE` (or for none): the script inventory check `audit -c` runs (unauthorized,
// changed, stale; no script detail is read, so a changed script has no fetch time), and each malicious
// script among them (the verdict `audit` uses, default thresholds). Located in FILE: an unauthorized
// script at its `authorized:` list, a changed or stale one at its entry, a malicious one at the entry
// authorizing it (else the zone). What the zone takes from FILE's `defaults:` counts, and is located
// there. Pure.
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
  /** The pages in scope (FILE's and --pages'). */
  pages: string[];
  /** Every script the list gave for the pages in scope (every status, any age). */
  scripts: readonly SeenScript[];
  now: Date;
  /** The `--merge` file: `file` as shown (relative to the working directory), `label` for messages. */
  merge?: { file: string; text: string; label: string };
  version: string;
  category?: string;
}

/**
 * The authorized entries of FILE's inventory for the zone, as the file means them: what the zone takes
 * from FILE's `defaults:` included, each url read back (`$${` is `${`); entries without a url string
 * are skipped.
 */
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
