// Where a finding sits in the configuration, for SARIF's physical locations. The files are parsed again
// with positions; a zone they do not declare falls back to line 1 of the first file, and a value a zone
// takes from `defaults:` is located where defaults write it. Spec: docs/commands/audit.md#sarif.
import { applyDefaults, parseYaml, type Locator } from "../config/index.js";
import { isPrefix, policiesPointer, scriptInventoryIn, scriptInventoryPointer, urlMatches } from "../sections/index.js";
import { replaceTemplateTokens } from "../template.js";
import type { FilePosition } from "./log.js";

interface ZoneBlock {
  file: string;
  /** Where a pointer of the merged document (the zones with their defaults) was written in the file. */
  locate: Locator;
  zone?: string;
  inventory: string;
  urls: Array<string | undefined>;
  pageUrls: Array<string | undefined>;
  pinned: string[];
}

export interface ConfigPositions {
  zone(zoneId: string): FilePosition | undefined;
  inventory(zoneId: string): FilePosition | undefined;
  entryCovering(zoneId: string, url: string): FilePosition | undefined;
  entry(zoneId: string, entryUrl: string): FilePosition | undefined;
  pageUrl(zoneId: string, url: string): FilePosition | undefined;
  headerPin(zoneId: string, name: string, url: string): FilePosition | undefined;
  policy(zoneId: string, index: number): FilePosition | undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function readBack(v: unknown): string | undefined {
  return typeof v === "string" ? replaceTemplateTokens(v, (whole) => whole) : undefined;
}

function merged(text: string, file: string): { value: unknown; locate: Locator } {
  const parsed = parseYaml(text, file);
  const expanded = applyDefaults(parsed.value);
  return { value: expanded.value, locate: (pointer, at) => parsed.locate(expanded.origin(pointer), at) };
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function urlsOf(inventory: unknown): Array<string | undefined> {
  const list = record(inventory)?.authorized;
  return Array.isArray(list) ? list.map((e) => readBack(record(e)?.url)) : [];
}

function headersOf(inventory: unknown): Pick<ZoneBlock, "pageUrls" | "pinned"> {
  const headers = record(record(inventory)?.headers);
  const urls = headers?.urls;
  const pinned = record(headers?.pinned);
  return { pageUrls: Array.isArray(urls) ? urls.map(readBack) : [], pinned: pinned ? Object.keys(pinned) : [] };
}

function token(key: string | number): string {
  return String(key).replace(/~/g, "~0").replace(/\//g, "~1");
}

function positions(blocks: ReadonlyMap<string, ZoneBlock>, first: string | undefined): ConfigPositions {
  const at = (b: ZoneBlock, pointer: string, key = false): FilePosition => {
    const p = b.locate(pointer, key ? "key" : "value");
    return { file: b.file, line: p.line, column: p.column };
  };
  const fallback = (): FilePosition | undefined => (first === undefined ? undefined : { file: first, line: 1 });
  const zone = (zoneId: string) => {
    const b = blocks.get(zoneId);
    if (!b) return fallback();
    return b.zone !== undefined ? at(b, b.zone) : at(b, b.inventory);
  };
  const inventory = (zoneId: string) => {
    const b = blocks.get(zoneId);
    if (!b) return fallback();
    return at(b, `${b.inventory}/authorized`, true);
  };
  const entryAt = (
    zoneId: string,
    pick: (urls: Array<string | undefined>) => number,
    orElse: (zoneId: string) => FilePosition | undefined,
  ) => {
    const b = blocks.get(zoneId);
    if (!b) return fallback();
    const i = pick(b.urls);
    return i < 0 ? orElse(zoneId) : at(b, `${b.inventory}/authorized/${i}`);
  };
  const pageUrl = (zoneId: string, url: string) => {
    const b = blocks.get(zoneId);
    if (!b) return fallback();
    const i = b.pageUrls.indexOf(url);
    return i < 0 ? zone(zoneId) : at(b, `${b.inventory}/headers/urls/${i}`);
  };
  return {
    zone,
    inventory,
    pageUrl,
    headerPin: (zoneId, name, url) => {
      const b = blocks.get(zoneId);
      if (!b) return fallback();
      return b.pinned.includes(name)
        ? at(b, `${b.inventory}/headers/pinned/${token(name)}`, true)
        : pageUrl(zoneId, url);
    },
    policy: (zoneId, index) => {
      const b = blocks.get(zoneId);
      if (!b || b.zone === undefined) return zone(zoneId);
      return at(b, `${policiesPointer(b.zone)}/${index}`);
    },
    entry: (zoneId, entryUrl) => entryAt(zoneId, (urls) => urls.indexOf(entryUrl), inventory),
    entryCovering: (zoneId, url) =>
      entryAt(
        zoneId,
        (urls) => {
          const exact = urls.findIndex((u) => u !== undefined && !isPrefix(u) && u === url);
          if (exact >= 0) return exact;
          let best = -1;
          urls.forEach((u, i) => {
            if (u !== undefined && isPrefix(u) && urlMatches(u, url) && (best < 0 || u.length > urls[best]!.length))
              best = i;
          });
          return best;
        },
        zone,
      ),
  };
}

export function configPositions(sources: ReadonlyArray<{ file: string; text: string }>): ConfigPositions {
  const blocks = new Map<string, ZoneBlock>();
  for (const s of sources) {
    const parsed = merged(s.text, s.file);
    const zones = record(parsed.value)?.zones;
    if (!Array.isArray(zones)) continue;
    zones.forEach((z, i) => {
      const id = str(record(z)?.zone_id)?.toLowerCase();
      if (id === undefined || blocks.has(id)) return;
      const inventory = scriptInventoryIn(z);
      blocks.set(id, {
        file: s.file,
        locate: parsed.locate,
        zone: `/zones/${i}`,
        inventory: scriptInventoryPointer(`/zones/${i}`),
        urls: urlsOf(inventory),
        ...headersOf(inventory),
      });
    });
  }
  return positions(blocks, sources[0]?.file);
}

/** Positions in an inventory file (`inventory --merge FILE`); `path` is where locateInventory found it. */
export function inventoryFilePositions(
  file: string,
  text: string,
  zoneId: string,
  path: ReadonlyArray<string | number>,
): ConfigPositions {
  const parsed = merged(text, file);
  const pointer = path.map((p) => `/${p}`).join("");
  let value: unknown = parsed.value;
  for (const p of path) value = Array.isArray(value) ? value[Number(p)] : record(value)?.[String(p)];
  const zone = path[0] === "zones" ? `/zones/${path[1]}` : undefined;
  const blocks = new Map<string, ZoneBlock>([
    [
      zoneId,
      {
        file,
        locate: parsed.locate,
        ...(zone ? { zone } : {}),
        inventory: pointer,
        urls: urlsOf(value),
        ...headersOf(value),
      },
    ],
  ]);
  return positions(blocks, file);
}
