// Finds a zone's inventory in a YAML file (a zoneform zone, with its `defaults:`, or a plain block)
// and reads it back as the file means it. Spec: docs/pci-script-inventory.md.
import { type Document, isMap, isSeq, parseDocument, type YAMLSeq } from "yaml";
import { getOwn } from "../data-record.js";
import { UsageError } from "../errors.js";
import { printable } from "../safe-text.js";
import { SCRIPT_INVENTORY_KEYS } from "../sections/index.js";
import { replaceTemplateTokens } from "../template.js";
import type { AuthorizedScript } from "./types.js";

function readBack(text: string): string {
  return replaceTemplateTokens(text, (whole) => whole);
}

// config's applyDefaults, passed in by callers: inventory reads no configuration itself.
export type DefaultsMerger = (document: unknown) => { value: unknown; origin(pointer: string): string };

interface InventoryPart {
  path: Array<string | number>;
  /** Set when the zone takes it from `defaults:`: the other zones that take it from there too. */
  shared?: string[];
}

export interface LocatedInventory {
  doc: Document;
  path: Array<string | number>;
  where: string;
  value: unknown;
  zone?: string;
  part(keys: readonly string[]): InventoryPart;
}

export interface FileInventory {
  pages: string[];
  authorized: AuthorizedScript[];
  headerUrls: string[];
  pins: Map<string, string>;
}

function rec(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function valueAt(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let v = root;
  for (const key of path) v = Array.isArray(v) ? v[Number(key)] : getOwn(rec(v) ?? {}, String(key));
  return v;
}

function pointerOf(path: ReadonlyArray<string | number>): string {
  return path.map((k) => `/${String(k).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

function pathOf(pointer: string): string[] {
  return pointer
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export function pathText(path: ReadonlyArray<string | number>): string {
  return path.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? k : `.${k}`)).join("");
}

function zoneIndex(zones: YAMLSeq, zone: { id: string; name?: string }): number {
  const i = zones.items.findIndex((z) => isMap(z) && String(z.get("zone_id") ?? "").toLowerCase() === zone.id);
  if (i >= 0 || zone.name === undefined) return i;
  return zones.items.findIndex((z) => isMap(z) && String(z.get("name") ?? "").toLowerCase() === zone.name);
}

function zoneName(zones: YAMLSeq, i: number): string {
  const z = zones.items[i];
  const named = isMap(z) ? (z.get("name") ?? z.get("zone_id")) : undefined;
  return printable(named === undefined || named === null ? `zones[${i}]` : String(named));
}

function plain(text: string, label: string): unknown {
  try {
    return parseDocument(text, { merge: true }).toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new UsageError(`${label}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function locateInventory(
  text: string,
  label: string,
  zone: { id: string; name?: string },
  defaults: DefaultsMerger,
): LocatedInventory {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new UsageError(`${label}: not YAML: ${doc.errors[0]!.message}`);
  const inPlace = (path: Array<string | number>, where: string): LocatedInventory => ({
    doc,
    path,
    where,
    value: valueAt(plain(text, label), path),
    part: (keys) => ({ path: [...path, ...keys] }),
  });
  if (isSeq(doc.get("zones", true))) {
    const zones = doc.get("zones", true) as YAMLSeq;
    const i = zoneIndex(zones, zone);
    if (i < 0)
      throw new UsageError(
        `${label}: no zone ${zone.id}${zone.name ? ` (${zone.name})` : ""} in the file; add it under zones: first`,
      );
    const path: Array<string | number> = ["zones", i, ...SCRIPT_INVENTORY_KEYS];
    const merged = defaults(plain(text, label));
    const part = (keys: readonly string[]): InventoryPart => {
      const own = [...path, ...keys];
      const from = merged.origin(pointerOf(own));
      if (from === pointerOf(own) || valueAt(merged.value, own) === undefined) return { path: own };
      const shared = zones.items.flatMap((_, j) => {
        const theirs = ["zones", j, ...own.slice(2)];
        if (j === i || merged.origin(pointerOf(theirs)) !== from || valueAt(merged.value, theirs) === undefined)
          return [];
        return [zoneName(zones, j)];
      });
      return { path: pathOf(from), shared };
    };
    return { doc, path, where: pathText(path), value: valueAt(merged.value, path), zone: zoneName(zones, i), part };
  }
  if (isMap(doc.get("script_inventory", true))) return inPlace(["script_inventory"], "script_inventory");
  if (isMap(doc.contents) || doc.contents === null) return inPlace([], "the top level");
  throw new UsageError(
    `${label}: expected a zoneform file (zones:) or an inventory block (script_inventory:, or pages: and authorized:)`,
  );
}

export function readInventory(located: LocatedInventory, label: string): FileInventory {
  const inv = rec(located.value) ?? {};
  const listAt = (key: string): unknown[] => {
    if (!Object.hasOwn(inv, key)) return [];
    const v = inv[key];
    if (!Array.isArray(v)) throw new UsageError(`${label}: ${located.where}.pages and .authorized must be lists`);
    return v;
  };
  const texts = (items: unknown[]) => items.flatMap((p) => (typeof p === "string" ? [readBack(p)] : []));
  const pages = texts(listAt("pages"));
  const authorized = listAt("authorized").flatMap((item): AuthorizedScript[] => {
    const e = rec(item);
    const url = e ? getOwn(e, "url") : undefined;
    if (!e || typeof url !== "string") return [];
    const justification = getOwn(e, "justification");
    const owner = getOwn(e, "owner");
    const hash = getOwn(e, "hash");
    return [
      {
        url: readBack(url),
        justification: typeof justification === "string" ? justification : String(justification ?? ""),
        ...(typeof owner === "string" ? { owner: readBack(owner) } : {}),
        ...(typeof hash === "string" ? { hash } : {}),
      },
    ];
  });
  const headers = getOwn(inv, "headers");
  const urls = rec(headers) ? getOwn(rec(headers)!, "urls") : undefined;
  const pinned = rec(headers) ? getOwn(rec(headers)!, "pinned") : undefined;
  if ((urls !== undefined && urls !== null && !Array.isArray(urls)) || (pinned != null && !rec(pinned)))
    throw new UsageError(`${label}: ${located.where}.headers.urls must be a list and .pinned a mapping`);
  const pins = new Map<string, string>();
  for (const [name, value] of Object.entries(rec(pinned) ?? {}))
    pins.set(name, typeof value === "string" ? readBack(value) : "");
  return { pages, authorized, headerUrls: Array.isArray(urls) ? texts(urls) : [], pins };
}

export function existingPages(
  text: string,
  label: string,
  zone: { id: string; name?: string },
  defaults: DefaultsMerger,
): string[] {
  return readInventory(locateInventory(text, label, zone, defaults), label).pages;
}
