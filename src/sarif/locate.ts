// Where a finding sits in the configuration, for SARIF's physical locations: the zone's entry in its
// file, the script inventory's `authorized:` list, or the authorized entry covering a script URL. The
// files are parsed again with positions (the same parser `validate` uses for file:line); a zone the files
// do not declare falls back to line 1 of the first file, and there is no file when none was read. A
// value a zone takes from its file's `defaults:` (config/defaults.ts) is located where defaults write it.
import { applyDefaults, parseYaml, type Locator } from "../config/index.js";
import { isPrefix, policiesPointer, scriptInventoryIn, scriptInventoryPointer, urlMatches } from "../sections/index.js";
import { replaceTemplateTokens } from "../template.js";
import type { FilePosition } from "./log.js";

/** A zone's script inventory in one file: where the zone and its inventory are, and the entries' urls. */
interface ZoneBlock {
  file: string;
  /** Where a pointer of the merged document (the zones with their defaults) was written in the file. */
  locate: Locator;
  /** Pointer of the zone's mapping (absent for a plain inventory block). */
  zone?: string;
  /** Pointer of the inventory mapping (`…/script_inventory`, or "" for a top-level block). */
  inventory: string;
  /** The `url` of each authorized entry, in file order (undefined where an entry has none), read back. */
  urls: Array<string | undefined>;
  /** The page URLs of `headers.urls`, in file order (undefined where an item is not a string). */
  pageUrls: Array<string | undefined>;
  /** The names pinned in `headers.pinned`. */
  pinned: string[];
}

export interface ConfigPositions {
  /** The zone's entry (`- zone_id: …`), else line 1 of the configuration. */
  zone(zoneId: string): FilePosition | undefined;
  /** The zone's `authorized:` list (where a new entry goes), else the zone. */
  inventory(zoneId: string): FilePosition | undefined;
  /** The authorized entry covering `url` (an exact url first, else the longest prefix), else the zone. */
  entryCovering(zoneId: string, url: string): FilePosition | undefined;
  /** The authorized entry whose `url` is exactly `entryUrl`, else the inventory. */
  entry(zoneId: string, entryUrl: string): FilePosition | undefined;
  /** The item of `headers.urls` that is `url`, else the zone. */
  pageUrl(zoneId: string, url: string): FilePosition | undefined;
  /** The pinned header `name` (its key) of `headers.pinned`, else the page `url`. */
  headerPin(zoneId: string, name: string, url: string): FilePosition | undefined;
  /** The zone's policy at `index` of its policies list, else the zone. */
  policy(zoneId: string, index: number): FilePosition | undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** A text of the file as it means it: `$${` is `${` (a `${…}` reference stays as written). */
function readBack(v: unknown): string | undefined {
  return typeof v === "string" ? replaceTemplateTokens(v, (whole) => whole) : undefined;
}

/** The file's document with its defaults merged into its zones, and a locator of where each value was written. */
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

/** A JSON pointer's token (RFC 6901). */
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

/** Positions in the files of a configuration (`zones[i]` by zone_id; the first declaration wins). */
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

/**
 * Positions in an inventory file (`inventory --merge FILE`): `path` is where the zone's inventory sits
 * in it (as `locateInventory` found it: `zones[i]…` in a zoneform file, whose defaults count).
 */
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
