// Merges what Page Shield saw into an existing inventory file, adding only what it lacks; the text is
// spliced (yaml-edit.ts) so every byte a person wrote stays. Spec: docs/pci-script-inventory.md.
import type { Node } from "yaml";
import { getOwn } from "../data-record.js";
import { UsageError } from "../errors.js";
import { escapeTemplates, SCRIPT_INVENTORY_KEYS } from "../sections/index.js";
import type { SeenScript } from "./check.js";
import { authorizationFor } from "./script-match.js";
import type { AuthorizedScript } from "./types.js";
import {
  DEFAULT_RECENT_DAYS,
  draftEntries,
  draftPins,
  entryNode,
  type LeftOutScript,
  type PageHeadersSeen,
  type UnevenHeader,
  withoutLookalikes,
} from "./yaml.js";
import { addToYaml, YamlShapeError, type YamlAddition } from "./yaml-edit.js";
import {
  type DefaultsMerger,
  type FileInventory,
  type LocatedInventory,
  locateInventory,
  pathText,
  readInventory,
} from "./yaml-locate.js";

export interface MergeResult {
  text: string;
  added: AuthorizedScript[];
  leftOut: LeftOutScript[];
  pagesAdded: string[];
  where: string;
  headers?: HeaderMerge;
  spliced: boolean;
}

export interface HeaderMerge {
  urlsAdded: string[];
  pinsAdded: Array<[string, string]>;
  /** The file's value is kept. */
  differing: Array<{ header: string; pinned: string; sent: string }>;
  notSent: string[];
  uneven: UnevenHeader[];
}

type Addition = { keys: string[] } & (
  | { kind: "seq"; items: unknown[] }
  | { kind: "map"; pairs: Array<[string, unknown]> }
);

// A list written in the zone would replace the one it takes from `defaults:` whole, so a list other
// zones share there is added to only with `intoDefaults`. Mappings merge key by key: into the zone.
function placed(
  located: LocatedInventory,
  additions: readonly Addition[],
  label: string,
  intoDefaults: boolean,
): { additions: YamlAddition[]; where: string } {
  const out: YamlAddition[] = [];
  const refused: Array<{ keys: string[]; shared: string[] }> = [];
  const places = new Set<string>();
  for (const add of additions) {
    const part = located.part(add.keys);
    const empty = add.kind === "seq" ? add.items.length === 0 : add.pairs.length === 0;
    let path = part.path;
    if (part.shared !== undefined) {
      if (empty) continue;
      if (part.shared.length > 0 && !intoDefaults) {
        if (add.kind === "seq") refused.push({ keys: add.keys, shared: part.shared });
        path = [...located.path, ...add.keys];
      }
    }
    out.push(add.kind === "seq" ? { path, kind: "seq", items: add.items } : { path, kind: "map", pairs: add.pairs });
    if (!empty) places.add(pathText(path.slice(0, path.length - add.keys.length)));
  }
  if (refused.length > 0) {
    const lists = refused.map((r) => [...SCRIPT_INVENTORY_KEYS, ...r.keys].join(".")).join(" and ");
    const zones = [...new Set(refused.flatMap((r) => r.shared))].join(", ");
    const these = refused.length === 1 ? "this list" : "these lists";
    throw new UsageError(
      `${label}: zone ${located.zone ?? "?"} takes ${lists} from defaults:, as do ${zones}; written in the zone, ` +
        `${these} would replace the one${refused.length === 1 ? "" : "s"} in defaults whole, dropping the ` +
        `entries there. Give --into-defaults to add to defaults: for every zone that takes ` +
        `${refused.length === 1 ? "it" : "them"}, or write the zone's own ${refused.length === 1 ? "list" : "lists"} ` +
        "under the zone (with the entries of defaults it keeps) and merge again",
    );
  }
  return { additions: out, where: places.size > 0 ? [...places].join(" and ") : located.where };
}

export function mergeInventory(
  text: string,
  label: string,
  scripts: readonly SeenScript[],
  opts: {
    pages: string[];
    pinHashes?: boolean;
    recentDays?: number;
    zone: { id: string; name?: string };
    now: Date;
    headers?: PageHeadersSeen;
    defaults: DefaultsMerger;
    intoDefaults?: boolean;
  },
): MergeResult {
  const located = locateInventory(text, label, opts.zone, opts.defaults);
  const { doc } = located;
  const file = readInventory(located, label);
  const known = new Set(file.pages);
  const pagesAdded = opts.pages.filter((p) => !known.has(p));

  const existing = file.authorized;
  const { scripts: kept, leftOut } = withoutLookalikes(scripts, {
    pages: [...known, ...pagesAdded],
    authorized: existing,
  });
  const added: AuthorizedScript[] = [];
  const entries: Node[] = [];
  const note = ` TODO review: added by zoneform inventory --merge on ${opts.now.toISOString().slice(0, 10)};`;
  for (const { entry, seen } of draftEntries(kept, opts.pinHashes)) {
    if (authorizationFor(existing, entry.url)) continue;
    entries.push(entryNode(doc, entry, seen, note, { now: opts.now, days: opts.recentDays ?? DEFAULT_RECENT_DAYS }));
    added.push(entry);
  }
  const additions: Addition[] = [
    { keys: ["pages"], kind: "seq", items: pagesAdded.map((p) => escapeTemplates(p)) },
    { keys: ["authorized"], kind: "seq", items: entries },
  ];
  const headers = opts.headers ? mergeHeaders(file, opts.headers) : undefined;
  if (headers) additions.push(...headers.additions);
  const { additions: edits, where } = placed(located, additions, label, opts.intoDefaults === true);
  let out: ReturnType<typeof addToYaml>;
  try {
    out = addToYaml(text, edits);
  } catch (err) {
    if (!(err instanceof YamlShapeError)) throw err;
    throw new UsageError(`${label}: ${err.message}, where the inventory goes (${where})`);
  }
  return {
    text: out.text,
    added,
    leftOut,
    pagesAdded,
    where,
    ...(headers ? { headers: headers.merge } : {}),
    spliced: out.spliced,
  };
}

function mergeHeaders(file: FileInventory, seen: PageHeadersSeen): { additions: Addition[]; merge: HeaderMerge } {
  const knownUrls = new Set(file.headerUrls);
  const filePins = file.pins;
  const { pinned: drafted, uneven } = draftPins(seen);
  const urlsAdded = seen.pages.map((p) => p.url).filter((u, i, all) => !knownUrls.has(u) && all.indexOf(u) === i);
  const pinsAdded = drafted.filter(([name]) => !filePins.has(name));
  const differing = drafted.flatMap(([name, sent]) => {
    const mine = filePins.get(name);
    return mine !== undefined && mine !== sent ? [{ header: name, pinned: mine, sent }] : [];
  });
  const notSent = [...filePins.keys()].filter((name) => seen.pages.every((p) => getOwn(p.headers, name) === undefined));
  return {
    additions: [
      { keys: ["headers", "urls"], kind: "seq", items: urlsAdded.map((u) => escapeTemplates(u)) },
      {
        keys: ["headers", "pinned"],
        kind: "map",
        pairs: pinsAdded.map(([name, value]): [string, unknown] => [name, escapeTemplates(value)]),
      },
    ],
    merge: { urlsAdded, pinsAdded, differing, notSent, uneven },
  };
}
