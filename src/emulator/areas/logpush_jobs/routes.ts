// Logpush routes for zones and accounts alike.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import {
  checkReachable,
  destinationFault,
  LOGPUSH_CODE,
  needsOwnership,
  parseDestination,
  requireDestination,
  requireOwnership,
  stripQuery,
} from "./destination.js";
import { datasetsOf, describeDatasetFields, listDatasetFields } from "./fields.js";
import { normalizeFilter } from "./filter.js";
import { checkAttackTraffic, checkJobScalars, fault, normalizeOutputOptions, throwIfAny } from "./validate.js";
import { isObject } from "../../validate.js";
import { ownershipToken } from "./ownership.js";
import { ApiFault, type ApiErrorBody, type Route, type RouteRequest, type RouteResponse } from "../../types.js";
import type { LogpushJob } from "./state.js";

type Job = LogpushJob;

const CREATE_FIELDS = [
  "name",
  "dataset",
  "destination_conf",
  "enabled",
  "filter",
  "kind",
  "max_upload_bytes",
  "max_upload_interval_seconds",
  "max_upload_records",
  "output_options",
  "ownership_challenge",
  "frequency",
  "logpull_options",
  "filter_attack_traffic",
];

// The jobs list answers no `result_info`: cft_logpush_zone_filter (a real answer) has none, the cloudflare-go
// fixture cfgo_logpush_list has one; the recording is followed.
function scopeRoutes(base: string): Route[] {
  return [
    { method: "GET", pattern: `${base}/logpush/jobs`, handler: (req) => ({ result: jobsOf(req) }) },
    { method: "POST", pattern: `${base}/logpush/jobs`, handler: createJob },
    {
      method: "GET",
      pattern: `${base}/logpush/jobs/:job_id`,
      handler: (req) => ({ result: requireJob(req, jobsOf(req)) }),
    },
    { method: "PUT", pattern: `${base}/logpush/jobs/:job_id`, handler: updateJob },
    { method: "DELETE", pattern: `${base}/logpush/jobs/:job_id`, handler: deleteJob },
    { method: "POST", pattern: `${base}/logpush/ownership`, handler: getOwnershipChallenge },
    { method: "POST", pattern: `${base}/logpush/ownership/validate`, handler: validateOwnership },
    { method: "POST", pattern: `${base}/logpush/validate/destination`, handler: validateDestination },
    { method: "POST", pattern: `${base}/logpush/validate/destination/exists`, handler: checkDestinationExists },
    { method: "GET", pattern: `${base}/logpush/datasets/:dataset/fields`, handler: getDatasetFields },
    { method: "GET", pattern: `${base}/logpush/datasets/:dataset/jobs`, handler: listDatasetJobs },
  ];
}

export const routes: Route[] = [...scopeRoutes("zones/:zone_id"), ...scopeRoutes("accounts/:account_id")];

function createJob(req: RouteRequest): RouteResponse {
  const zone = holderOf(req, true);
  const body = requireBody(req.body, CREATE_FIELDS);
  const errors: ApiErrorBody[] = [];
  const dataset = body.dataset;
  const datasets = datasetsOf(scopeOf(req));
  if (typeof dataset !== "string" || !datasets.includes(dataset)) {
    errors.push(fault("/dataset", `dataset is required and must be one of ${datasets.join(", ")}`));
  }
  const kind = body.kind ?? "";
  if (kind !== "" && kind !== "edge") errors.push(fault("/kind", 'kind must be "" or "edge"'));
  if (kind === "edge" && dataset !== "http_requests")
    errors.push(fault("/kind", "edge jobs are only supported for the http_requests dataset"));
  const ds = typeof dataset === "string" ? dataset : "";
  const fields = listDatasetFields(ds, scopeOf(req));
  const scalars = checkJobScalars(body, errors);
  checkAttackTraffic(scalars.filter_attack_traffic, ds, errors);
  const outputOptions =
    body.output_options === undefined ? undefined : normalizeOutputOptions(body.output_options, ds, fields, errors);
  throwIfAny(errors);
  const filter = normalizeFilter(body.filter, fields);
  const conf = body.destination_conf as string;
  const dest = requireDestination(conf);
  requireOwnership(zone.id, conf, dest, body.ownership_challenge);
  // A job configured by `logpull_options` alone has no output_options; one with neither answers
  // `output_options: null` (the emulator's choice: no answer of such a job is recorded).
  const legacy = typeof scalars.logpull_options === "string";
  const job: Job = {
    id: req.state.next_job_id++,
    dataset: ds,
    destination_conf: conf,
    enabled: false,
    name: null,
    ...(filter !== null ? { filter } : {}),
    kind,
    max_upload_bytes: null,
    max_upload_interval_seconds: null,
    max_upload_records: null,
    ...(outputOptions !== undefined ? { output_options: outputOptions } : legacy ? {} : { output_options: null }),
    error_message: null,
    last_complete: null,
    last_error: null,
    ...scalars,
  };
  zone.logpush_jobs.push(job);
  return { result: job };
}

/**
 * PUT changes only the fields it carries: `{enabled: true}` alone keeps everything else, output_options
 * included.
 */
function updateJob(req: RouteRequest): RouteResponse {
  const zone = holderOf(req);
  const job = requireJob(req, zone.logpush_jobs);
  const body = requireBody(req.body, CREATE_FIELDS);
  const errors: ApiErrorBody[] = [];
  if (body.dataset !== undefined && body.dataset !== job.dataset)
    errors.push(fault("/dataset", `dataset cannot be changed after creation (it is ${String(job.dataset)})`));
  if (body.kind !== undefined && (body.kind ?? "") !== (job.kind ?? ""))
    errors.push(fault("/kind", `kind cannot be changed after creation (it is ${JSON.stringify(job.kind ?? "")})`));
  const ds = String(job.dataset);
  const fields = listDatasetFields(ds, scopeOf(req));
  const scalars = checkJobScalars(body, errors);
  checkAttackTraffic(scalars.filter_attack_traffic, ds, errors);
  const outputOptions =
    body.output_options === undefined ? undefined : normalizeOutputOptions(body.output_options, ds, fields, errors);
  throwIfAny(errors);
  const filter = body.filter === undefined ? undefined : normalizeFilter(body.filter, fields);
  const conf =
    body.destination_conf === undefined ? (job.destination_conf as string) : (body.destination_conf as string);
  if (conf !== job.destination_conf) {
    const dest = requireDestination(conf);
    requireOwnership(zone.id, conf, dest, body.ownership_challenge);
  }
  Object.assign(job, scalars, { destination_conf: conf });
  if (outputOptions !== undefined) job.output_options = outputOptions;
  if (filter === null) delete job.filter;
  else if (filter !== undefined) job.filter = filter;
  return { result: job };
}

function deleteJob(req: RouteRequest): RouteResponse {
  const zone = holderOf(req);
  const job = requireJob(req, zone.logpush_jobs);
  zone.logpush_jobs = zone.logpush_jobs.filter((j) => j.id !== job.id);
  return { result: {} };
}

/** "Writes" the token into the destination; the admin API's ownership route reads it back. */
function getOwnershipChallenge(req: RouteRequest): RouteResponse {
  const zone = holderOf(req);
  const conf = requireBody(req.body, ["destination_conf"]).destination_conf;
  const dest = requireDestination(conf);
  const token = ownershipToken(zone.id, conf as string);
  const dir = dest.path.replace(/\{DATE\}/g, "").replace(/^\/+|\/+$/g, "");
  const filename = `${dir ? `${dir}/` : ""}ownership-challenge-${token.slice(0, 8)}.txt`;
  return { result: { filename, message: "", valid: true } };
}

function validateOwnership(req: RouteRequest): RouteResponse {
  const zone = holderOf(req);
  const body = requireBody(req.body, ["destination_conf", "ownership_challenge"]);
  const dest = parseDestination(body.destination_conf);
  if (typeof dest === "string") throw destinationFault(dest);
  const valid =
    typeof body.ownership_challenge === "string" &&
    body.ownership_challenge === ownershipToken(zone.id, body.destination_conf as string);
  return { result: { valid } };
}

function validateDestination(req: RouteRequest): RouteResponse {
  const conf = requireBody(req.body, ["destination_conf"]).destination_conf;
  if (typeof conf !== "string") throw new ApiFault(400, [fault("/destination_conf", "destination_conf is required")]);
  const dest = parseDestination(conf);
  if (typeof dest === "string") return { result: { valid: false, message: dest } };
  const message = checkReachable(dest);
  if (message) return { result: { valid: false, message } };
  const note = needsOwnership(dest) ? "ownership_challenge will be required when creating a job" : "";
  return { result: { valid: true, message: note } };
}

/** The real endpoint answers whether a job of the zone already pushes there (query string ignored). */
function checkDestinationExists(req: RouteRequest): RouteResponse {
  const zone = holderOf(req);
  const conf = requireBody(req.body, ["destination_conf"]).destination_conf;
  if (typeof conf !== "string" || conf === "")
    throw new ApiFault(400, [fault("/destination_conf", "destination_conf is required")]);
  const exists = zone.logpush_jobs.some((j) => stripQuery(String(j.destination_conf)) === stripQuery(conf));
  return { result: { exists } };
}

function getDatasetFields(req: RouteRequest): RouteResponse {
  const dataset = req.params.dataset ?? "";
  const fields = describeDatasetFields(dataset, scopeOf(req));
  if (!fields) throw unknownDataset(dataset, scopeOf(req));
  return { result: fields };
}

function listDatasetJobs(req: RouteRequest): RouteResponse {
  const dataset = req.params.dataset ?? "";
  if (!datasetsOf(scopeOf(req)).includes(dataset)) throw unknownDataset(dataset, scopeOf(req));
  return { result: jobsOf(req).filter((j) => j.dataset === dataset) };
}

function unknownDataset(dataset: string, scope: "zone" | "account"): ApiFault {
  return new ApiFault(400, [
    {
      code: LOGPUSH_CODE.invalid,
      message: `unknown dataset ${dataset}; ${scope} datasets are ${datasetsOf(scope).join(", ")}`,
    },
  ]);
}

function requireJob(req: RouteRequest, jobs: readonly Job[]): Job {
  const raw = req.params.job_id ?? "";
  if (!/^[1-9]\d{0,15}$/.test(raw)) {
    throw new ApiFault(400, [
      {
        code: 7003,
        message:
          `Could not route to /logpush/jobs/${raw}, perhaps your object identifier is invalid? (job ` +
          `ids are integers)`,
      },
    ]);
  }
  const job = jobs.find((j) => j.id === Number(raw));
  if (!job) throw new ApiFault(404, [{ code: LOGPUSH_CODE.notFound, message: `logpush job ${raw} not found` }]);
  return job;
}

function scopeOf(req: RouteRequest): "zone" | "account" {
  return req.zone ? "zone" : "account";
}

function jobsOf(req: RouteRequest): Job[] {
  return req.zone
    ? req.zone.logpush_jobs
    : ((req.state.accounts ?? []).find((a) => a.id === req.params.account_id)?.logpush_jobs ?? []);
}

function holderOf(req: RouteRequest, create = false): { id: string; logpush_jobs: Job[] } {
  if (req.zone) return req.zone;
  const id = req.params.account_id;
  if (id === undefined) throw new ApiFault(404, [{ code: 7003, message: "Could not route to zone" }]);
  const accounts = req.state.accounts ?? [];
  const found = accounts.find((a) => a.id === id);
  if (found) return found;
  const empty = { id, logpush_jobs: [] as Job[] };
  if (create) (req.state.accounts ??= []).push(empty);
  return empty;
}

/** A JSON object with only `allowed` keys: an unknown key is more likely a typo than an extension. */
function requireBody(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (!isObject(body)) throw new ApiFault(400, [fault("/", "the request body must be a JSON object")]);
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0)
    throw new ApiFault(
      400,
      unknown.map((k) => fault(`/${k}`, `unknown field ${k}; accepted: ${allowed.join(", ")}`)),
    );
  return body;
}
