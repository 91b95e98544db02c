// Page Shield routes: settings, inventory lists, CSP policies.
// Spec: docs/emulator.md, What it emulates.
import { notFoundFault } from "../../envelope.js";
import { randomId } from "../../ids.js";
import { paginate, readPageRequest, type PageBounds } from "../../paging.js";
import { ApiFault, type Route, type RouteRequest, type RouteResponse, type ZoneState } from "../../types.js";
import { requireFields, type FieldSpec } from "../../validate.js";
import { cookieFilters, isMaliciousItem, orderItems, rejectExport, resourceFilters, type Item } from "./query.js";

/** per_page bounds of the inventory lists; the default is the emulator's choice (not documented). */
const PAGE_SHIELD_PAGING: PageBounds = { min: 1, max: 100, default: 15 };

/** 2026 added `add_reporting_directives` to log | allow. */
const POLICY_ACTIONS = ["log", "allow", "add_reporting_directives"] as const;

const SETTINGS_FIELDS: Record<string, FieldSpec> = {
  enabled: { type: "boolean" },
  use_cloudflare_reporting_endpoint: { type: "boolean" },
  use_connection_url_path: { type: "boolean" },
};

const POLICY_FIELDS: Record<string, FieldSpec> = {
  description: { type: "string", required: true },
  action: { type: "string", required: true, enum: POLICY_ACTIONS },
  expression: { type: "string", required: true },
  enabled: { type: "boolean", required: true },
  value: { type: "string", required: true },
};

function zoneOf(req: RouteRequest): ZoneState {
  return req.zone!;
}

function readSettings(req: RouteRequest): RouteResponse {
  return { result: settingsView(zoneOf(req)) };
}

function updateSettings(req: RouteRequest): RouteResponse {
  const body = requireFields(req.body, SETTINGS_FIELDS);
  const zone = zoneOf(req);
  Object.assign(zone.page_shield, body, { updated_at: req.now() });
  // The PUT answer is `{enabled, updated_at}` only (Page Shield API reference), although the 2024 schema
  // requires all four settings; GET answers all four.
  return { result: { enabled: zone.page_shield.enabled, updated_at: zone.page_shield.updated_at } };
}

function settingsView(zone: ZoneState): Record<string, unknown> {
  const ps = zone.page_shield;
  return {
    enabled: ps.enabled,
    updated_at: ps.updated_at,
    use_cloudflare_reporting_endpoint: ps.use_cloudflare_reporting_endpoint,
    use_connection_url_path: ps.use_connection_url_path,
  };
}

function listInventory(kind: "scripts" | "connections" | "cookies", listView: (item: Item) => Item) {
  return (req: RouteRequest): RouteResponse => {
    rejectExport(req.query);
    const filters = kind === "cookies" ? cookieFilters(req.query) : resourceFilters(req.query);
    const matching = zoneOf(req)[kind].filter((item) => filters.every((f) => f(item)));
    const ordered = orderItems(matching, req.query, kind === "cookies" ? undefined : isMaliciousItem);
    // `page=all` (scripts, connections) returns every match on one page.
    if (kind !== "cookies" && req.query.get("page") === "all") {
      const all = ordered.map(listView);
      return {
        result: all,
        result_info: { page: 1, per_page: all.length, count: all.length, total_count: all.length, total_pages: 1 },
      };
    }
    const { result, result_info } = paginate(ordered, readPageRequest(req.query, PAGE_SHIELD_PAGING));
    return { result: result.map(listView), result_info };
  };
}

function getInventoryItem(kind: "scripts" | "connections" | "cookies", param: string, label: string) {
  return (req: RouteRequest): RouteResponse => {
    const item = zoneOf(req)[kind].find((i) => i.id === req.params[param]);
    if (!item) throw notFoundFault(label);
    return { result: item };
  };
}

function withoutKeys(keys: string[]): (item: Item) => Item {
  return (item) => {
    const copy: Item = { ...item };
    for (const k of keys) delete copy[k];
    return copy;
  };
}

function findPolicy(req: RouteRequest): Item {
  const policy = zoneOf(req).policies.find((p) => p.id === req.params.policy_id);
  if (!policy) throw notFoundFault("Policy");
  return policy;
}

/**
 * A policy as stored: the six fields the API writes, and any other a state file gives it (a field of the API to
 * come), shown as it is.
 */
function policyView(p: Item): Item {
  return {
    ...p,
    id: p.id,
    description: p.description,
    action: p.action,
    expression: p.expression,
    enabled: p.enabled,
    value: p.value,
  };
}

/** The policies list answers no `result_info`, although the 2024 schema requires one. */
function listPolicies(req: RouteRequest): RouteResponse {
  const policies = zoneOf(req).policies.map(policyView);
  if (!req.query.has("page") && !req.query.has("per_page")) return { result: policies };
  return { result: paginate(policies, readPageRequest(req.query, PAGE_SHIELD_PAGING)).result };
}

/**
 * `enabled` as a boolean or the text "true"/"false": Cloudflare's own create example sends `"enabled": "true"`
 * and gets 200.
 */
function readEnabledText(body: unknown): unknown {
  const b = body as Record<string, unknown> | null;
  if (b === null || typeof b !== "object" || (b.enabled !== "true" && b.enabled !== "false")) return body;
  return { ...b, enabled: b.enabled === "true" };
}

/** Non-empty strings where the API would reject an empty one. */
function checkNonEmpty(body: Record<string, unknown>): void {
  const empty = ["description", "expression", "value"].filter((k) => body[k] === "");
  if (empty.length > 0) {
    throw new ApiFault(
      400,
      empty.map((k) => ({ code: 1004, message: `${k} must not be empty`, source: { pointer: `/${k}` } })),
    );
  }
}

function createPolicy(req: RouteRequest): RouteResponse {
  const body = requireFields(readEnabledText(req.body), POLICY_FIELDS);
  checkNonEmpty(body);
  const policy: Item = {
    id: randomId(),
    description: body.description,
    action: body.action,
    expression: body.expression,
    enabled: body.enabled,
    value: body.value,
  };
  zoneOf(req).policies.push(policy);
  return { result: policyView(policy) };
}

/** What a field a PUT leaves out becomes when the PUT replaces the policy. */
const POLICY_RESET: Readonly<Record<string, unknown>> = {
  description: "",
  action: "log",
  expression: "",
  enabled: false,
  value: "",
};

/**
 * The API reference marks every field of the update optional, but no recorded answer shows whether a PUT merges
 * or replaces.
 */
function updatePolicy(req: RouteRequest): RouteResponse {
  const policy = findPolicy(req);
  const optional = Object.fromEntries(
    Object.entries(POLICY_FIELDS).map(([k, spec]) => [k, { ...spec, required: false }]),
  );
  const body = requireFields(readEnabledText(req.body), optional);
  checkNonEmpty(body);
  for (const k of Object.keys(policy)) if (k !== "id") delete policy[k];
  Object.assign(policy, POLICY_RESET, body);
  return { result: policyView(policy) };
}

function deletePolicy(req: RouteRequest): RouteResponse {
  const policy = findPolicy(req);
  const zone = zoneOf(req);
  zone.policies = zone.policies.filter((p) => p !== policy);
  return { status: 204, empty: true };
}

const ps = "zones/:zone_id/page_shield";

export const routes: Route[] = [
  { method: "GET", pattern: ps, handler: readSettings },
  { method: "PUT", pattern: ps, handler: updateSettings },
  {
    method: "GET",
    pattern: `${ps}/scripts`,
    handler: listInventory("scripts", withoutKeys(["page_urls", "versions"])),
  },
  { method: "GET", pattern: `${ps}/scripts/:script_id`, handler: getInventoryItem("scripts", "script_id", "Script") },
  { method: "GET", pattern: `${ps}/connections`, handler: listInventory("connections", withoutKeys(["page_urls"])) },
  {
    method: "GET",
    pattern: `${ps}/connections/:connection_id`,
    handler: getInventoryItem("connections", "connection_id", "Connection"),
  },
  { method: "GET", pattern: `${ps}/cookies`, handler: listInventory("cookies", (item) => item) },
  { method: "GET", pattern: `${ps}/cookies/:cookie_id`, handler: getInventoryItem("cookies", "cookie_id", "Cookie") },
  { method: "GET", pattern: `${ps}/policies`, handler: listPolicies },
  { method: "POST", pattern: `${ps}/policies`, handler: createPolicy },
  { method: "GET", pattern: `${ps}/policies/:policy_id`, handler: (req) => ({ result: policyView(findPolicy(req)) }) },
  { method: "PUT", pattern: `${ps}/policies/:policy_id`, handler: updatePolicy },
  { method: "DELETE", pattern: `${ps}/policies/:policy_id`, handler: deletePolicy },
];
