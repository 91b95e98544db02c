import type { DesiredLogpushJob } from "./types.js";
import type { Change, FieldDiff, Operation } from "../../model/index.js";
import { redactDestination } from "../../redact.js";
import { deleteItemChange } from "../shared/identity-list.js";
import {
  comparableOutputOptions,
  describeFilter,
  destinationScheme,
  diffOutputOptions,
  filterToWire,
  filtersEqual,
  heldOutputOptions,
  needsOwnershipChallenge,
  outputOptionsFromLogpull,
  outputOptionsToSend,
  stripDestinationSecrets,
  type LiveLogpushJob,
} from "./live.js";
import { hasEnvReference, shownTemplate } from "../../template.js";

export function holdsSecret(value: unknown): boolean {
  if (typeof value === "string") return hasEnvReference(value);
  if (Array.isArray(value)) return value.some(holdsSecret);
  return value !== null && typeof value === "object" && Object.values(value).some(holdsSecret);
}

/** What a plan says of a destination check that waits for apply. */
const CHECKED_AT_APPLY =
  "Cloudflare checks this destination at apply, before anything is written: it holds a secret, which is " +
  "never sent before the review";

export const RESOURCE = "logpush_job";
export const UPLOAD_LIMITS = ["max_upload_bytes", "max_upload_interval_seconds", "max_upload_records"] as const;

/** A unit as the kind's functions see it: its path, and how messages name it. */
export interface Where {
  id: string;
  base: string;
  word: "zone" | "account";
}

export function jobsPath(at: Where, id?: string): string {
  return id === undefined ? `${at.base}/logpush/jobs` : `${at.base}/logpush/jobs/${id}`;
}

export function withoutId(job: LiveLogpushJob): Omit<LiveLogpushJob, "id"> {
  const { id: _id, ...rest } = job;
  return rest;
}

export function createBody(job: DesiredLogpushJob): Record<string, unknown> {
  const filter = filterToWire(job.filter);
  return {
    name: job.name,
    dataset: job.dataset,
    destination_conf: job.destination_conf,
    ...(job.ownership_challenge !== undefined ? { ownership_challenge: job.ownership_challenge } : {}),
    enabled: job.enabled,
    ...(job.kind !== undefined ? { kind: job.kind } : {}),
    ...(filter !== undefined ? { filter } : {}),
    ...(job.output_options !== undefined ? { output_options: heldOutputOptions(job.output_options) } : {}),
    ...Object.fromEntries(UPLOAD_LIMITS.filter((k) => job[k] !== undefined).map((k) => [k, job[k]])),
    ...(job.filter_attack_traffic !== undefined ? { filter_attack_traffic: job.filter_attack_traffic } : {}),
  };
}

/** The PUT body: every field the file manages on the job, as the file states it. */
export function updateBody(job: DesiredLogpushJob, live: LiveLogpushJob): Record<string, unknown> {
  const body: Record<string, unknown> = { name: job.name };
  if (job.destination_conf !== live.destination_conf) {
    body.destination_conf = job.destination_conf;
    if (job.ownership_challenge !== undefined) body.ownership_challenge = job.ownership_challenge;
  }
  body.enabled = job.enabled;
  const filter = filterToWire(job.filter);
  if (filter !== undefined || live.filter !== undefined || live.filter_unparsed !== undefined)
    body.filter = filter ?? "";
  if (
    job.output_options !== undefined &&
    (live.legacy_logpull === undefined || diffOutputOptions(job.output_options, live.output_options).length > 0)
  ) {
    body.output_options = outputOptionsToSend(job.output_options, live.output_options);
  }
  for (const k of UPLOAD_LIMITS) if (job[k] !== undefined) body[k] = job[k];
  if (job.filter_attack_traffic !== undefined) body.filter_attack_traffic = job.filter_attack_traffic;
  return body;
}

/** Why the job must be replaced rather than updated (the API cannot change these in place). */
export function forcedFields(job: DesiredLogpushJob, live: LiveLogpushJob): FieldDiff[] {
  const out: FieldDiff[] = [];
  if (live.dataset !== null && job.dataset !== live.dataset)
    out.push({ field: "dataset", before: live.dataset, after: job.dataset });
  if (job.kind !== undefined && job.kind !== live.kind) out.push({ field: "kind", before: live.kind, after: job.kind });
  return out;
}

function jobFieldDiffs(job: DesiredLogpushJob, live: LiveLogpushJob): FieldDiff[] {
  const out: FieldDiff[] = [];
  // Only a job pinned by id can differ in name: an unpinned entry matches by name.
  if (job.name !== live.name) out.push({ field: "name", before: live.name, after: job.name });
  if (job.destination_conf !== live.destination_conf) {
    out.push({
      field: "destination_conf",
      before: redactDestination(live.destination_conf),
      after: redactDestination(job.destination_conf),
    });
    if (job.ownership_challenge !== undefined)
      out.push({ field: "ownership_challenge", after: job.ownership_challenge, sensitive: true });
  }
  if (job.enabled !== live.enabled) out.push({ field: "enabled", before: live.enabled, after: job.enabled });
  if (live.filter_unparsed !== undefined || !filtersEqual(job.filter, live.filter)) {
    // As readable conditions (a word diff when both exist).
    const before = live.filter_unparsed ?? describeFilter(live.filter);
    const after = describeFilter(job.filter);
    out.push({
      field: "filter",
      before,
      after,
      ...(before !== undefined && after !== undefined ? { text: true } : {}),
    });
  }
  if (job.output_options !== undefined) {
    const want = comparableOutputOptions(job.output_options);
    const have = comparableOutputOptions(live.output_options ?? {});
    for (const key of diffOutputOptions(job.output_options, live.output_options)) {
      out.push({
        field: `output_options.${key}`,
        before: structuredClone(have[key]),
        after: structuredClone(want[key]),
      });
    }
  }
  for (const k of UPLOAD_LIMITS) {
    if (job[k] !== undefined && job[k] !== live[k]) out.push({ field: k, before: live[k], after: job[k] });
  }
  if (job.filter_attack_traffic !== undefined && job.filter_attack_traffic !== live.filter_attack_traffic) {
    out.push({ field: "filter_attack_traffic", before: live.filter_attack_traffic, after: job.filter_attack_traffic });
  }
  return out;
}

function fieldsNote(fields: FieldDiff[], job: DesiredLogpushJob, live: LiveLogpushJob): string[] {
  const notes: string[] = [];
  const f = fields.find((x) => x.field === "destination_conf");
  const shown = (v: unknown) => (typeof v === "string" ? shownTemplate(v) : v);
  if (f && shown(f.before) === shown(f.after) && job.destination_conf !== live.destination_conf) {
    notes.push("the credentials in destination_conf differ from the live job's (values hidden)");
  }
  if (live.legacy_logpull !== undefined && fields.some((x) => x.field.startsWith("output_options."))) {
    notes.push(
      `moves the job from the legacy logpull_options ("${live.legacy_logpull}") to output_options, which ` +
        `replace them; the unchanged options are carried over as the file states them`,
    );
    const { unknown } = outputOptionsFromLogpull(live.legacy_logpull);
    if (unknown.length > 0)
      notes.push(
        `logpull_options parameter(s) ${unknown.join(", ")} have no output_options counterpart and are not ` +
          `carried over`,
      );
  }
  return notes;
}

/** A storage destination (new, or changed) needs the token Cloudflare wrote into it. */
export function challengeError(at: Where, job: DesiredLogpushJob): string | undefined {
  if (job.ownership_challenge !== undefined || !needsOwnershipChallenge(job.destination_conf)) return undefined;
  const dest = stripDestinationSecrets(job.destination_conf);
  return (
    `logpush job "${job.name}": ${destinationScheme(job.destination_conf)} destinations need an ownership ` +
    `challenge and the file gives none. ` +
    `Run: zoneform logpush challenge --${at.word} ${at.id} --destination '${dest}' ` +
    "then put the token it points to in an environment variable and set ownership_challenge: " +
    "$${env:LOGPUSH_CHALLENGE} on the job"
  );
}

export function deleteChange(at: Where, live: LiveLogpushJob, note?: string): Change {
  const path = jobsPath(at, live.id);
  return deleteItemChange({
    resource: RESOURCE,
    zoneId: at.id,
    identity: live.name,
    liveId: live.id,
    before: withoutId(live),
    path,
    note,
  });
}

/** The POST of a new job, and how apply tells it apart after a lost answer. */
function createJobOp(at: Where, job: DesiredLogpushJob, known: string[]): Operation {
  const body = createBody(job);
  const { ownership_challenge: _writeOnly, ...equals } = body;
  return {
    method: "POST",
    path: jobsPath(at),
    body,
    finds: {
      path: jobsPath(at),
      match: { name: job.name, dataset: job.dataset, ...(job.kind ? { kind: job.kind } : {}) },
      known,
      equals,
      compare: { filter: "json" },
    },
  };
}

export function destinationCheckBody(job: DesiredLogpushJob, body: Record<string, unknown>): unknown {
  return [job.destination_conf, body.ownership_challenge];
}

export function createChange(at: Where, job: DesiredLogpushJob, known: string[]): Change {
  const body = createBody(job);
  const shown: Record<string, unknown> = {
    ...body,
    ...(body.filter ? { filter: describeFilter(job.filter) } : {}),
    ...(job.output_options ? { output_options: job.output_options } : {}),
  };
  const fields: FieldDiff[] = Object.entries(shown).map(([field, after]) => {
    if (field === "destination_conf") return { field, after: redactDestination(String(after)) };
    if (field === "ownership_challenge") return { field, after, sensitive: true };
    return { field, after };
  });
  return {
    kind: "create",
    resource: RESOURCE,
    zone_id: at.id,
    identity: job.name,
    after: createBody(job),
    fields,
    operations: [createJobOp(at, job, known)],
    ...(holdsSecret(destinationCheckBody(job, body)) ? { notes: [CHECKED_AT_APPLY] } : {}),
  };
}

export function replaceChange(
  at: Where,
  job: DesiredLogpushJob,
  live: LiveLogpushJob,
  forced: FieldDiff[],
  known: string[],
): Change {
  const others = jobFieldDiffs(job, live).filter((f) => f.field !== "ownership_challenge");
  // The new job gets its own ownership proof, whatever else changes.
  const challenge: FieldDiff[] =
    job.ownership_challenge !== undefined
      ? [{ field: "ownership_challenge", after: job.ownership_challenge, sensitive: true }]
      : [];
  return {
    kind: "replace",
    resource: RESOURCE,
    zone_id: at.id,
    identity: job.name,
    live_id: live.id,
    summary:
      `${forced.map((f) => f.field).join(" and ")} cannot change in place: the new job is created ` +
      `before job ${live.id} is deleted, so no logs are lost`,
    before: withoutId(live),
    after: createBody(job),
    fields: [...forced, ...others, ...challenge],
    operations: [
      // The old job is among the known ids: it is never taken for the new one.
      createJobOp(at, job, known),
      { method: "DELETE", path: jobsPath(at, live.id) },
    ],
    ...(holdsSecret(destinationCheckBody(job, createBody(job))) ? { notes: [CHECKED_AT_APPLY] } : {}),
  };
}

/** The PUT of a job whose mutable fields differ (none when none do), and why its destination cannot take it. */
export function updateChange(
  at: Where,
  want: DesiredLogpushJob,
  keep: LiveLogpushJob,
): { change?: Change; error?: string } {
  const fields = jobFieldDiffs(want, keep);
  if (fields.length === 0) return {};
  const error = want.destination_conf !== keep.destination_conf ? challengeError(at, want) : undefined;
  const notes = fieldsNote(fields, want, keep);
  const body = updateBody(want, keep);
  if (fields.some((f) => f.field === "destination_conf") && holdsSecret(destinationCheckBody(want, body)))
    notes.push(CHECKED_AT_APPLY);
  const change: Change = {
    kind: "update",
    resource: RESOURCE,
    zone_id: at.id,
    identity: want.name,
    live_id: keep.id,
    before: withoutId(keep),
    after: createBody(want),
    fields,
    operations: [{ method: "PUT", path: jobsPath(at, keep.id), body }],
    ...(notes.length > 0 ? { notes } : {}),
  };
  return { change, ...(error ? { error } : {}) };
}
