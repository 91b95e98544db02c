// Notification policy routes: list, get, create, update (PUT), delete.
// Spec: docs/emulator.md, What it emulates.
import { notFoundFault } from "../../envelope.js";
import { randomId } from "../../ids.js";
import { ApiFault, type ApiErrorBody, type Route, type RouteRequest, type RouteResponse } from "../../types.js";
import { INVALID_BODY_CODE, isObject, requireObject } from "../../validate.js";
import { ALERT_TYPES } from "./alert-types.js";
import type { AlertingPolicy } from "./state.js";

const BASE = "accounts/:account_id/alerting/v3/policies";
const FIELDS = ["name", "alert_type", "enabled", "description", "alert_interval", "mechanisms", "filters"];
const MECHANISMS = ["email", "webhooks", "pagerduty"];
/** An e-mail address as the emulator checks it: something@host.tld, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function problem(pointer: string, message: string): ApiErrorBody {
  return { code: INVALID_BODY_CODE, message, source: { pointer } };
}

/** The account's stored part (an account without objects gets its entry when `create`). */
function holderOf(req: RouteRequest, create = false): { id: string; alerting_policies: AlertingPolicy[] } {
  const id = req.params.account_id!;
  const accounts = req.state.accounts ?? [];
  const found = accounts.find((a) => a.id === id);
  if (found) {
    found.alerting_policies ??= [];
    return found as typeof found & { alerting_policies: AlertingPolicy[] };
  }
  // The new entry holds every list an account has (as seed.ts createEmptyAccount makes it, which an area cannot
  // import: seed.ts imports the areas), so that the Logpush area finds its own.
  const empty = { id, alerting_policies: [] as AlertingPolicy[], logpush_jobs: [] };
  if (create) (req.state.accounts ??= []).push(empty);
  return empty;
}

/** The ids of the zones of the account (a zone without its own account_id is the state's account's). */
function zonesOfAccount(req: RouteRequest): Set<string> {
  const account = req.params.account_id;
  return new Set(req.state.zones.filter((z) => (z.account_id ?? req.state.account_id) === account).map((z) => z.id));
}

function check(req: RouteRequest, body: Record<string, unknown>, create: boolean): ApiErrorBody[] {
  const errors: ApiErrorBody[] = [];
  for (const k of Object.keys(body)) {
    if (!FIELDS.includes(k)) errors.push(problem(`/${k}`, `unknown field ${k}; accepted: ${FIELDS.join(", ")}`));
  }
  const required = create ? ["name", "alert_type", "enabled", "mechanisms"] : ["alert_type"];
  for (const k of required) if (body[k] === undefined) errors.push(problem(`/${k}`, `${k} is required`));
  if (body.name !== undefined && (typeof body.name !== "string" || body.name.trim() === ""))
    errors.push(problem("/name", "name must be a non-empty string"));
  if (body.alert_type !== undefined && (typeof body.alert_type !== "string" || !ALERT_TYPES.has(body.alert_type)))
    errors.push(problem("/alert_type", `'${String(body.alert_type)}' is not a valid value for alert_type`));
  if (body.enabled !== undefined && typeof body.enabled !== "boolean")
    errors.push(problem("/enabled", "enabled must be a boolean"));
  for (const k of ["description", "alert_interval"]) {
    if (body[k] !== undefined && typeof body[k] !== "string") errors.push(problem(`/${k}`, `${k} must be a string`));
  }
  if (body.mechanisms !== undefined) errors.push(...checkMechanisms(body.mechanisms));
  if (body.filters !== undefined) errors.push(...checkFilters(req, body.filters));
  return errors;
}

function checkMechanisms(mechanisms: unknown): ApiErrorBody[] {
  if (!isObject(mechanisms)) return [problem("/mechanisms", "mechanisms must be an object")];
  const errors: ApiErrorBody[] = [];
  for (const [kind, list] of Object.entries(mechanisms)) {
    const at = `/mechanisms/${kind}`;
    if (!MECHANISMS.includes(kind)) {
      errors.push(problem(at, `unknown mechanism ${kind}; accepted: ${MECHANISMS.join(", ")}`));
      continue;
    }
    if (!Array.isArray(list)) {
      errors.push(problem(at, `${kind} must be a list of {id}`));
      continue;
    }
    list.forEach((m, i) => {
      const id = isObject(m) ? m.id : undefined;
      if (typeof id !== "string" || id === "") errors.push(problem(`${at}/${i}/id`, "id must be a non-empty string"));
      else if (kind === "email" && !EMAIL.test(id))
        errors.push(problem(`${at}/${i}/id`, `'${id}' is not a valid e-mail address`));
    });
  }
  return errors;
}

function checkFilters(req: RouteRequest, filters: unknown): ApiErrorBody[] {
  if (!isObject(filters)) return [problem("/filters", "filters must be an object")];
  const errors: ApiErrorBody[] = [];
  for (const [key, list] of Object.entries(filters)) {
    if (!Array.isArray(list) || !list.every((v) => typeof v === "string"))
      errors.push(problem(`/filters/${key}`, `filters.${key} must be a list of strings`));
  }
  if (Array.isArray(filters.zones)) {
    const ours = zonesOfAccount(req);
    filters.zones.forEach((z, i) => {
      if (typeof z === "string" && !ours.has(z))
        errors.push(problem(`/filters/zones/${i}`, `zone ${z} is not a zone of this account`));
    });
  }
  return errors;
}

function newPolicyId(): string {
  const h = randomId();
  const variant = "89ab"[parseInt(h[16]!, 16) & 3];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20)}`;
}

function policyOf(req: RouteRequest): AlertingPolicy {
  const policy = holderOf(req).alerting_policies.find((p) => p.id === req.params.alerting_policy_id);
  if (!policy) throw notFoundFault("notification policy");
  return policy;
}

/** The fields a body sets, as stored (filters and mechanisms copied, so the caller's object is not kept). */
function written(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, structuredClone(v)]));
}

function list(req: RouteRequest): RouteResponse {
  return { result: holderOf(req).alerting_policies };
}

function create(req: RouteRequest): RouteResponse {
  const body = requireObject(req.body);
  const errors = check(req, body, true);
  if (errors.length > 0) throw new ApiFault(400, errors);
  const now = req.now();
  const policy: AlertingPolicy = { id: newPolicyId(), filters: {}, ...written(body), created: now, modified: now };
  holderOf(req, true).alerting_policies.push(policy);
  return { result: { id: policy.id } };
}

/**
 * A PUT replaces the policy's fields with the body's: a field it leaves out is reset (description,
 * alert_interval removed, filters `{}`; name, enabled and mechanisms kept, as no answer shows them unset).
 */
function update(req: RouteRequest): RouteResponse {
  const policy = policyOf(req);
  const body = requireObject(req.body);
  const errors = check(req, body, false);
  if (errors.length > 0) throw new ApiFault(400, errors);
  const kept = { id: policy.id, name: policy.name, enabled: policy.enabled, mechanisms: policy.mechanisms };
  const created = policy.created;
  for (const k of Object.keys(policy)) delete policy[k];
  Object.assign(policy, kept, { filters: {} }, written(body), { created, modified: req.now() });
  return { result: { id: policy.id } };
}

function remove(req: RouteRequest): RouteResponse {
  const policy = policyOf(req);
  const holder = holderOf(req);
  holder.alerting_policies = holder.alerting_policies.filter((p) => p !== policy);
  return { result: null };
}

export const routes: Route[] = [
  { method: "GET", pattern: BASE, handler: list },
  { method: "POST", pattern: BASE, handler: create },
  { method: "GET", pattern: `${BASE}/:alerting_policy_id`, handler: (req) => ({ result: policyOf(req) }) },
  { method: "PUT", pattern: `${BASE}/:alerting_policy_id`, handler: update },
  { method: "DELETE", pattern: `${BASE}/:alerting_policy_id`, handler: remove },
];
