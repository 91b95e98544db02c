// Page Shield admin endpoints: /__emulator/inventory and /__emulator/scripts.
// Spec: docs/emulator.md, Admin API.
import type { AdminContext, AdminHandler } from "../../area.js";
import { AdminError, inventoryCount, ratio, readAdminBody, type FieldRule } from "../../admin-input.js";
import { parseInstant, readInstant } from "../../../instant.js";
import { md5Hex } from "../../ids.js";
import { addThreatScores, generateInventory } from "./inventory.js";

export const admin: Record<string, AdminHandler> = {
  "POST inventory": replaceInventory,
  "POST scripts": scriptEvent,
};

function replaceInventory(rt: AdminContext, body: unknown): unknown {
  const b = readAdminBody(body, {
    zone_id: { type: "string", required: true, expected: "a zone id" },
    scripts: inventoryCount,
    connections: inventoryCount,
    cookies: inventoryCount,
    malicious_ratio: ratio({ required: true }),
    seed: { type: "integer", expected: "an integer" },
    payment_pages: { type: "boolean", expected: "true or false" },
    now: TIMESTAMP_RULE,
  });
  const zone = rt.state.zones.find((z) => z.id === b.zone_id);
  if (!zone) throw new AdminError(404, `no zone ${String(b.zone_id)}`);
  const inv = generateInventory({
    paymentPages: b.payment_pages === true,
    // Every item is dated back from `now`, by default the emulator's clock, so that an audit's --stale-days
    // window sees them as current.
    now: b.now === undefined ? rt.clock() : parseInstant(b.now as string)!,
    zoneId: zone.id,
    zoneName: zone.name,
    scripts: b.scripts as number,
    connections: b.connections as number,
    cookies: b.cookies as number,
    maliciousRatio: b.malicious_ratio as number,
    seed: b.seed as number | undefined,
  });
  Object.assign(zone, inv);
  return { scripts: inv.scripts.length, connections: inv.connections.length, cookies: inv.cookies.length };
}

const TIMESTAMP_RULE: FieldRule = {
  type: "string",
  expected: "an ISO 8601 timestamp",
  // A day or time that does not exist (2026-02-30) is refused, never rolled over.
  check: (v: string) => {
    const r = readInstant(v);
    return "problem" in r ? r.problem : undefined;
  },
};

const SCRIPT_EVENTS = ["seen", "changed", "unseen"] as const;

function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/**
 * What happens to one script of a zone's Page Shield inventory, for tests of `audit` against a script
 * inventory: `seen` (the script appears on `page`, or is seen again: last_seen_at = `at`), `changed` (a new
 * version with another hash, fetched at `at`, later than the previous one) or `unseen` (last seen `days_ago`
 * days before `at`, default 120, and inactive).
 */
function scriptEvent(rt: AdminContext, body: unknown): unknown {
  const b = readAdminBody(body, {
    zone_id: { type: "string", required: true, expected: "a zone id" },
    event: {
      type: "string",
      required: true,
      expected: SCRIPT_EVENTS.join(", "),
      check: (v: string) => ((SCRIPT_EVENTS as readonly string[]).includes(v) ? undefined : ""),
    },
    url: {
      type: "string",
      required: true,
      expected: "an http(s) URL",
      check: (v: string) => (/^https?:\/\/\S+$/.test(v) ? undefined : ""),
    },
    page: { type: "string", expected: "a page URL such as example.com/checkout" },
    hash: {
      type: "string",
      expected: "64 hex characters",
      check: (v: string) => (/^[0-9a-f]{64}$/.test(v) ? undefined : ""),
    },
    at: TIMESTAMP_RULE,
    days_ago: { type: "integer", min: 0, max: 3650, expected: "a whole number of days from 0 to 3650" },
  });
  const zone = rt.state.zones.find((z) => z.id === b.zone_id);
  if (!zone) throw new AdminError(404, `no zone ${String(b.zone_id)}`);
  const url = b.url as string;
  const atMs = b.at === undefined ? rt.clock() : parseInstant(b.at as string)!;
  const at = isoSeconds(atMs);
  let script = zone.scripts.find((s) => s.url === url);
  const hashOf = (n: number) =>
    (b.hash as string | undefined) ?? md5Hex(`${zone.id}|${url}|v${n}`) + md5Hex(`${zone.id}|${url}|v${n}|2`);
  if (!script) {
    if (b.event !== "seen")
      throw new AdminError(404, `no script ${url} in zone ${zone.id}; make it appear first (event seen)`);
    const page = (b.page as string | undefined) ?? `${zone.name}/checkout`;
    const hash = hashOf(1);
    script = {
      id: md5Hex(`${zone.id}|script|${url}`),
      url,
      added_at: `${at.slice(0, 19)}.5Z`,
      first_seen_at: at,
      last_seen_at: at,
      host: page.split("/")[0] ?? zone.name,
      domain_reported_malicious: false,
      url_reported_malicious: false,
      malicious_url_categories: [],
      first_page_url: page,
      status: "active",
      url_contains_cdn_cgi_path: false,
      hash,
      js_integrity_score: 80,
      obfuscation_score: 80,
      dataflow_score: 80,
      fetched_at: at,
      page_urls: [page],
      versions: [{ hash, js_integrity_score: 80, fetched_at: at }],
    };
    addThreatScores(script, false);
    zone.scripts.push(script);
    return script;
  }
  const pages = Array.isArray(script.page_urls) ? (script.page_urls as string[]) : [];
  if (b.page !== undefined && !pages.includes(b.page as string)) script.page_urls = [...pages, b.page as string];
  if (b.event === "seen") {
    script.last_seen_at = at;
    script.status = "active";
  } else if (b.event === "changed") {
    const versions = Array.isArray(script.versions) ? (script.versions as Array<Record<string, unknown>>) : [];
    const previous = Math.max(
      0,
      ...versions.map((v) => Date.parse(String(v.fetched_at))).filter((t) => !Number.isNaN(t)),
    );
    const fetched = isoSeconds(Math.max(atMs, previous + 1000));
    const hash = hashOf(versions.length + 1);
    script.versions = [{ hash, js_integrity_score: script.js_integrity_score ?? 80, fetched_at: fetched }, ...versions];
    script.hash = hash;
    script.fetched_at = fetched;
    script.last_seen_at = fetched;
    script.status = "active";
  } else {
    script.last_seen_at = isoSeconds(atMs - ((b.days_ago as number | undefined) ?? 120) * 86_400_000);
    script.status = "inactive";
    if (typeof script.first_seen_at === "string" && script.first_seen_at > (script.last_seen_at as string))
      script.first_seen_at = script.last_seen_at;
  }
  return script;
}
