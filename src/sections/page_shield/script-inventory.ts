// What `audit`, `inventory` and `csp suggest` read of the page_shield section: the script inventory and the API paths.
// Spec: docs/pci-script-inventory.md.
import { mapStrings } from "../../redact.js";
import { shownTemplate } from "../../template.js";
import type { DesiredPolicy, DesiredScriptInventory, PageShieldZone } from "./types.js";

export const SCRIPT_INVENTORY_KEYS = ["page_shield", "script_inventory"] as const;
/** Where the policies sit in a zone, as messages name them (`csp suggest` proposes them). */
export const POLICIES_PATH = `${SCRIPT_INVENTORY_KEYS[0]}.policies`;
export const SCRIPT_INVENTORY_PATH = SCRIPT_INVENTORY_KEYS.join(".");
export const SCRIPT_INVENTORY_HEADERS_PATH = `${SCRIPT_INVENTORY_PATH}.headers`;

export function scriptInventoryOf(zone: PageShieldZone): DesiredScriptInventory | undefined {
  const inventory = zone.page_shield?.script_inventory;
  return inventory && asText(inventory);
}

export function declaredPoliciesOf(zone: PageShieldZone): readonly DesiredPolicy[] | undefined {
  const policies = zone.page_shield?.policies;
  return policies && asText(policies);
}

/** What audit compares with the pages and shows. */
function asText<T>(value: T): T {
  return mapStrings(value, shownTemplate) as T;
}

export function policiesPointer(zonePointer: string): string {
  return `${zonePointer}/${POLICIES_PATH.split(".").join("/")}`;
}

export function scriptInventoryPointer(zonePointer: string): string {
  return `${zonePointer}/${SCRIPT_INVENTORY_KEYS.join("/")}`;
}

/** The inventory mapping of a zone of a parsed (unchecked) document, if it is one. */
export function scriptInventoryIn(zone: unknown): Record<string, unknown> | undefined {
  let v: unknown = zone;
  for (const key of SCRIPT_INVENTORY_KEYS)
    v = v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A Page Shield list of a zone in the API, relative to the base: `zones/{id}/page_shield/{list}`. */
export function pageShieldApiPath(
  zoneId: string,
  list: "scripts" | "connections" | "cookies" | "policies" | string,
): string {
  return `zones/${zoneId}/page_shield/${list}`;
}

/** The inventory as a reviewer reads it, a line a page, script, fetched URL and pin. */
export function inventoryLines(inventory: DesiredScriptInventory): string[] {
  const quoted = (v: string) => JSON.stringify(v);
  return [
    ...inventory.pages.map((p) => `page in scope: ${quoted(p)}`),
    ...inventory.authorized.map(
      (a) =>
        `authorized script: ${quoted(a.url)}${a.hash ? ` hash ${a.hash}` : ""}` +
        `${a.owner !== undefined ? `, owner ${quoted(a.owner)}` : ""}, justification ${quoted(a.justification)}`,
    ),
    ...(inventory.headers?.urls ?? []).map((u) => `page fetched for its headers: ${quoted(u)}`),
    ...Object.entries(inventory.headers?.pinned ?? {}).map(
      ([name, value]) => `header pinned: ${name}: ${quoted(value)}`,
    ),
  ];
}
