// `--zone` of the commands that talk to the API without a file (audit, export, certificates, csp suggest, logpush
// challenge, waf-migration): each value is a zone id (32 hex) or a zone name.
import { domainToASCII } from "node:url";
import { Option, type Command } from "commander";
import type { CloudflareClient } from "../cloudflare/index.js";
import { RuntimeError, UsageError } from "../errors.js";
import { printable } from "../safe-text.js";
import { collectList } from "./option-table.js";

/** A zone as the command line names it: by id, or by name (still to be looked up). */
export type ZoneRef = { id: string } | { name: string };

const ZONE_ID = /^[0-9a-f]{32}$/i;
const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const ZONE_NAME = new RegExp(`^(?:${LABEL}\\.)+(?=[a-z0-9-]*[a-z])${LABEL}$`);

function badZone(value: string): UsageError {
  return new UsageError(
    `--zone ${printable(value)}: expected a zone id (32 hex characters) or a zone name such as example.com`,
  );
}

/** One `--zone` value: a 32-hex id (lower-cased), else a domain name (lower-cased, IDN as punycode). */
export function parseZoneRef(value: string): ZoneRef {
  const v = value.trim();
  if (ZONE_ID.test(v)) return { id: v.toLowerCase() };
  // domainToASCII is lenient ("a.com/x" gives "a.com"): only letters, digits, dots and hyphens go in.
  if (v.length === 0 || /[\s/\\?#@:%*,[\]]/u.test(v)) throw badZone(value);
  const name = domainToASCII(v.replace(/\.$/, "").toLowerCase());
  if (name.length > 253 || !ZONE_NAME.test(name)) throw badZone(value);
  return { name };
}

export interface ParseZoneRefsOptions {
  single?: string;
}

/** The `--zone` values of `command`: at least one, each an id or a name, duplicates dropped. */
export function parseZoneRefs(
  values: string[] | undefined,
  command: string,
  opts: ParseZoneRefsOptions = {},
): ZoneRef[] {
  if (!values || values.length === 0) {
    throw new UsageError(
      `${command} needs --zone ID|NAME (the zone's 32-character id, or its name such as example.com)`,
    );
  }
  const refs: ZoneRef[] = [];
  const seen = new Set<string>();
  for (const value of values) {
    const ref = parseZoneRef(value);
    const key = "id" in ref ? `id:${ref.id}` : `name:${ref.name}`;
    if (!seen.has(key)) refs.push(ref);
    seen.add(key);
  }
  if (opts.single !== undefined && refs.length > 1) {
    throw new UsageError(
      `${command} takes one --zone (${opts.single}); got ${values.length}: ` +
        `${values.map((v) => printable(v)).join(", ")}. Run it once per zone.`,
    );
  }
  return refs;
}

interface ListedZone {
  id?: unknown;
  name?: unknown;
}

/** The id of the one zone named `name` the credentials can see (`GET zones?name=`). */
export async function lookUpZoneName(client: CloudflareClient, name: string): Promise<string> {
  const listed: unknown = await client.listAll<unknown>("zones", { query: { name }, perPage: 50 });
  if (!Array.isArray(listed)) throw new RuntimeError(`GET zones?name=${name}: the answer is not a list of zones`);
  const ids = [
    ...new Set(
      (listed as ListedZone[])
        .filter((z) => typeof z?.name === "string" && z.name.toLowerCase() === name && typeof z.id === "string")
        .map((z) => z.id as string),
    ),
  ];
  if (ids.length === 0)
    throw new RuntimeError(`no zone named ${name} is visible to this token (check the name, or pass the zone id)`);
  if (ids.length > 1) {
    throw new RuntimeError(
      `${ids.length} zones named ${name} are visible to this token ` +
        `(${ids.map((i) => printable(i)).join(", ")}); pass the zone id`,
    );
  }
  return ids[0]!;
}

/** The zone ids the refs name, in order and without duplicates. */
export async function resolveZoneRefs(client: CloudflareClient, refs: readonly ZoneRef[]): Promise<string[]> {
  const names = [...new Set(refs.flatMap((r) => ("name" in r ? [r.name] : [])))];
  const found = new Map(await Promise.all(names.map(async (n) => [n, await lookUpZoneName(client, n)] as const)));
  return [...new Set(refs.map((r) => ("id" in r ? r.id : found.get(r.name)!)))];
}

/** The zone id one ref names (a name looked up). */
export async function resolveZoneRef(client: CloudflareClient, ref: ZoneRef): Promise<string> {
  return "id" in ref ? ref.id : lookUpZoneName(client, ref.name);
}

/**
 * Adds `--zone ID|NAME`: repeatable for a command over several zones, or (with `single`) one zone, a repeat being a
 * usage error that `parseZoneRefs` reports.
 */
export function addZoneRefOption(cmd: Command, opts: { single?: boolean } = {}): Command {
  const help = opts.single
    ? "the zone: its id (32 hex) or its name; one zone"
    : "zone id (32 hex) or zone name; repeatable";
  return cmd.addOption(new Option("--zone <id|name>", help).argParser(collectList));
}
