// Logpush jobs.
// Spec: docs/configuration.md, `logs.logpush_jobs`.
import { AnswerShapeError, ApiError, NetworkError } from "../../errors.js";
import type { DesiredLogpushJob } from "./types.js";
import type { AccountWithLogpush, ZoneWithLogpush } from "./types.js";
import type { ZoneBase, Change, FieldDiff, Operation } from "../../model/index.js";
import { clipJson, redactDestination } from "../../redact.js";
import { deleteItemChange, matchIdentities, type IdentityRule } from "../shared/identity-list.js";
import {
  comparableOutputOptions,
  compareDigits,
  describeFilter,
  destinationScheme,
  diffOutputOptions,
  filterToWire,
  filtersEqual,
  heldOutputOptions,
  needsOwnershipChallenge,
  normalizeLiveJob,
  outputOptionsFromLogpull,
  outputOptionsToSend,
  redactDestinationSecrets,
  stripDestinationSecrets,
  type LiveLogpushJob,
} from "./live.js";
import type { ReadContext, ResourceKind } from "../types.js";
import { checkJobFields, fieldsWritten } from "./fields-check.js";
import { hasEnvReference, shownTemplate } from "../../template.js";

/** Whether a body holds a `${env:…}` reference: a check sending it waits for apply, after the review. */
function holdsSecret(value: unknown): boolean {
  if (typeof value === "string") return hasEnvReference(value);
  if (Array.isArray(value)) return value.some(holdsSecret);
  return value !== null && typeof value === "object" && Object.values(value).some(holdsSecret);
}

/** What a plan says of a destination check that waits for apply. */
const CHECKED_AT_APPLY =
  "Cloudflare checks this destination at apply, before anything is written: it holds a secret, which is " +
  "never sent before the review";

const RESOURCE = "logpush_job";
const UPLOAD_LIMITS = ["max_upload_bytes", "max_upload_interval_seconds", "max_upload_records"] as const;

/**
 * Where a unit's jobs are: a zone's (`zones/{id}/logpush/…`) or an account's (`accounts/{id}/logpush/…`), the same job
 * shape, checks, ownership challenge and identity rules.
 */
export interface LogpushScope<U extends ZoneBase> {
  /** How messages and `logpush challenge` name the unit: `zone` or `account`. */
  word: "zone" | "account";
  /** The unit's path: `zones/{id}` or `accounts/{id}`. */
  base(id: string): string;
  /** The unit's desired jobs (undefined: not managed) and whether jobs it does not list are deleted. */
  jobs(unit: U): DesiredLogpushJob[] | undefined;
  prune(unit: U): boolean;
}

const ZONE_SCOPE: LogpushScope<ZoneWithLogpush> = {
  word: "zone",
  base: (id) => `zones/${id}`,
  jobs: (zone) => zone.logs?.logpush_jobs,
  prune: (zone) => zone.logs?.prune ?? true,
};

const ACCOUNT_SCOPE: LogpushScope<AccountWithLogpush> = {
  word: "account",
  base: (id) => `accounts/${id}`,
  jobs: (account) => account.logpush_jobs,
  prune: (account) => account.prune,
};

/** A unit as the kind's functions see it: its path, and how messages name it. */
interface Where {
  /** The unit's id (`zone_id` of the plan unit). */
  id: string;
  base: string;
  word: "zone" | "account";
}

function jobsPath(at: Where, id?: string): string {
  return id === undefined ? `${at.base}/logpush/jobs` : `${at.base}/logpush/jobs/${id}`;
}

function withoutId(job: LiveLogpushJob): Omit<LiveLogpushJob, "id"> {
  const { id: _id, ...rest } = job;
  return rest;
}

/** The POST body of a new job: only what the file says, the filter as its compact JSON string. */
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

/**
 * The PUT body: every field the file manages on the job, as the file states it (the live job with the planned changes),
 * changed or not, so that the job means what the file says whether the API merges or replaces: name, enabled, the
 * filter (`""` removes one; left out when neither side has one, which means the same either way), output_options whole,
 * and each upload limit and filter_attack_traffic the file states.
 */
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
function forcedFields(job: DesiredLogpushJob, live: LiveLogpushJob): FieldDiff[] {
  const out: FieldDiff[] = [];
  if (live.dataset !== null && job.dataset !== live.dataset)
    out.push({ field: "dataset", before: live.dataset, after: job.dataset });
  if (job.kind !== undefined && job.kind !== live.kind) out.push({ field: "kind", before: live.kind, after: job.kind });
  return out;
}

/** Field-level differences of the mutable fields, secrets hidden. */
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
    // As readable conditions (a word diff when both exist); the JSON string sent is in the operation.
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

/**
 * A validation answer must say `valid` (true or false), as documented: `{}`, null or a string is never taken for
 * "valid".
 */
function checkAnswer(res: unknown, what: string): { valid: boolean; message?: string } | string {
  const r =
    res !== null && typeof res === "object" && !Array.isArray(res) ? (res as Record<string, unknown>) : undefined;
  if (!r || typeof r.valid !== "boolean") {
    return (
      `the API answered POST logpush/${what} with ${clipJson(res, 60) ?? "nothing"}, expected ` +
      `{"valid": true|false}; the destination was not confirmed and nothing was changed`
    );
  }
  return { valid: r.valid, ...(typeof r.message === "string" ? { message: r.message } : {}) };
}

/** A storage destination (new, or changed) needs the token Cloudflare wrote into it. */
function challengeError(at: Where, job: DesiredLogpushJob): string | undefined {
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

function deleteChange(at: Where, live: LiveLogpushJob, note?: string): Change {
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

/** The bodies a destination check sends for a job: its destination, and its ownership token with it. */
function destinationCheckBody(job: DesiredLogpushJob, body: Record<string, unknown>): unknown {
  return [job.destination_conf, body.ownership_challenge];
}

function createChange(at: Where, job: DesiredLogpushJob, known: string[]): Change {
  const body = createBody(job);
  // Shown as the file says it: the filter as conditions, only the output options the file sets.
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

function replaceChange(
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

const IDENTITY: IdentityRule<DesiredLogpushJob, LiveLogpushJob> = {
  what: "Logpush job",
  whats: "Logpush jobs",
  idOf: (j) => j.id,
  pinOf: (j) => j.id,
  hint: { ofDesired: (j) => JSON.stringify([j.name, j.dataset]), ofLive: (j) => JSON.stringify([j.name, j.dataset]) },
  describeDesired: (j) => `Logpush job ${JSON.stringify(j.name)} (dataset ${j.dataset})`,
  describeLive: (j) =>
    `id ${j.id} (name ${JSON.stringify(j.name)}, dataset ${j.dataset ?? "not stated"}${j.enabled ? "" : ", disabled"})`,
};

/** The desired job a change was planned for: by the live id it pins, else by name and dataset. */
function desiredFor(jobs: readonly DesiredLogpushJob[], change: Change): DesiredLogpushJob | undefined {
  const pinned = change.live_id !== undefined ? jobs.find((j) => j.id === change.live_id) : undefined;
  if (pinned) return pinned;
  const after = (change.after ?? {}) as { name?: unknown; dataset?: unknown };
  return jobs.find((j) => j.id === undefined && j.name === after.name && j.dataset === after.dataset);
}

/** The Logpush jobs kind of a scope: zones' (`logpushJobs`) or accounts' (`accountLogpushJobs`). */
function logpushJobsKind<U extends ZoneBase>(scope: LogpushScope<U>): ResourceKind<LiveLogpushJob[], U> {
  const where = (unit: U): Where => ({ id: unit.zone_id, base: scope.base(unit.zone_id), word: scope.word });
  return {
    name: RESOURCE,
    order: 40,
    independentChanges: true,
    // The filter is shown as conditions, destinations redacted, output options as the file states them.
    bodyFields: ["name", "dataset", "kind", "enabled", ...UPLOAD_LIMITS],
    owns: (unit) => scope.jobs(unit) !== undefined,

    async read(ctx, unit) {
      // The jobs list is not paginated (one call returns every job); listAll still follows totals or a cursor should an
      // answer carry them, and folds a job answered twice.
      const path = jobsPath(where(unit));
      const raw: unknown = await ctx.client.listAll<unknown>(path);
      if (!Array.isArray(raw))
        throw new AnswerShapeError(`the API answered GET ${path} with ${clipJson(raw, 60)}, expected a list of jobs`);
      // Ids are compared as digits: beyond 2^53 Number() would round two ids into one.
      const live = raw.map(normalizeLiveJob).sort((a, b) => compareDigits(a.id, b.id));
      return { live, resources: Object.fromEntries(live.map((j) => [j.id, withoutId(j)])) };
    },

    diff(unit: U, live) {
      const desired = scope.jobs(unit) ?? [];
      const prune = scope.prune(unit);
      const at = where(unit);
      const zoneId = at.id;
      const { matches, unmatched, live: distinct, errors, warnings } = matchIdentities(desired, live, IDENTITY);
      const known = distinct.map((j) => j.id);

      const changes: Change[] = [];
      for (const { want, live: keep } of matches) {
        if (!keep) {
          const err = challengeError(at, want);
          if (err) errors.push(err);
          changes.push(createChange(at, want, known));
          continue;
        }
        const forced = forcedFields(want, keep);
        if (keep.dataset === null) {
          // Only a pinned entry can match a job whose answer states no dataset (the hints hold it).
          errors.push(
            `Logpush job ${JSON.stringify(want.name)} pins id ${keep.id}, whose dataset the API did not state, ` +
              `so zoneform cannot tell whether it is ${want.dataset} (a dataset cannot change in place); check ` +
              `the job (GET ${jobsPath(at, keep.id)}) and plan again; nothing in this ${at.word} is changed.`,
          );
        } else if (forced.length > 0 && want.id !== undefined) {
          // The new job would get a new id, and the pin would then name nothing.
          errors.push(
            `Logpush job ${JSON.stringify(want.name)} pins id ${want.id}, whose ` +
              `${forced.map((f) => f.field).join(" and ")} cannot change in place ` +
              `(live: ${forced.map((f) => `${f.field} ${JSON.stringify(f.before)}`).join(", ")}); remove the ` +
              `\`id:\` to replace the job, or write the live value; nothing in this ${at.word} is changed.`,
          );
        } else if (forced.length > 0) {
          const err = challengeError(at, want);
          if (err) errors.push(err);
          changes.push(replaceChange(at, want, keep, forced, known));
        } else {
          const fields = jobFieldDiffs(want, keep);
          if (fields.length > 0) {
            if (want.destination_conf !== keep.destination_conf) {
              const err = challengeError(at, want);
              if (err) errors.push(err);
            }
            const notes = fieldsNote(fields, want, keep);
            const body = updateBody(want, keep);
            if (fields.some((f) => f.field === "destination_conf") && holdsSecret(destinationCheckBody(want, body)))
              notes.push(CHECKED_AT_APPLY);
            changes.push({
              kind: "update",
              resource: RESOURCE,
              zone_id: zoneId,
              identity: want.name,
              live_id: keep.id,
              before: withoutId(keep),
              after: createBody(want),
              fields,
              operations: [{ method: "PUT", path: jobsPath(at, keep.id), body }],
              ...(notes.length > 0 ? { notes } : {}),
            });
          }
        }
      }
      // prune: false never deletes what the file did not match, whatever the live list looks like.
      if (prune) for (const j of unmatched) changes.push(deleteChange(at, j));
      return { changes, errors, warnings };
    },

    /** Asks the API about every destination a change would write to. */
    async check(ctx, unit, changes) {
      const desired = scope.jobs(unit) ?? [];
      const at = where(unit);
      const writes: Array<{ job: DesiredLogpushJob; body: Record<string, unknown>; destination: boolean }> = [];
      for (const change of changes) {
        if (change.resource !== RESOURCE || change.kind === "delete") continue;
        const job = desiredFor(desired, change);
        if (!job) continue;
        const write = change.operations.find(
          (op): op is Operation & { body: Record<string, unknown> } => op.method !== "DELETE" && !!op.body,
        );
        if (!write) continue;
        const destination = change.kind !== "update" || change.fields.some((f) => f.field === "destination_conf");
        // Before the review, only what carries no secret; at apply, only what waited for it.
        const secret = holdsSecret(destinationCheckBody(job, write.body));
        if (ctx.atApply && !(destination && secret)) continue;
        writes.push({ job, body: write.body, destination: destination && secret === !!ctx.atApply });
      }
      // Every job is checked at once (each is an object of its own), its fields (one read per dataset) and its
      // destination side by side: one round for all; each job's findings keep the plan's order.
      const [fields, destinations] = await Promise.all([
        Promise.all(
          writes.map(({ job, body }) => {
            const named = ctx.atApply ? undefined : fieldsWritten(body);
            return named ? checkJobFields(ctx, at.base, job, named) : Promise.resolve([]);
          }),
        ),
        Promise.all(
          writes.map(({ job, body, destination }) =>
            destination ? checkDestination(ctx, at, job, body) : Promise.resolve(undefined),
          ),
        ),
      ]);
      return writes.flatMap((_, i) => [...fields[i]!, ...(destinations[i] !== undefined ? [destinations[i]] : [])]);
    },
  };
}

/** A zone's Logpush jobs (`logs.logpush_jobs`). */
export const logpushJobs = logpushJobsKind(ZONE_SCOPE);

/** An account's Logpush jobs (`logpush_jobs` of an entry of `accounts:`). */
export const accountLogpushJobs = logpushJobsKind(ACCOUNT_SCOPE);

/**
 * What is wrong with the destination a job would write to, or with the ownership token it would send (undefined:
 * nothing).
 */
async function checkDestination(
  ctx: ReadContext,
  at: Where,
  job: DesiredLogpushJob,
  body: Record<string, unknown>,
): Promise<string | undefined> {
  const shown = redactDestination(job.destination_conf);
  const scrub = (text: string) =>
    redactDestinationSecrets(text, job.destination_conf, job.ownership_challenge ? [job.ownership_challenge] : []);
  const validation = ctx.client.request<unknown>("POST", `${at.base}/logpush/validate/destination`, {
    body: { destination_conf: job.destination_conf },
    idempotent: true,
  });
  const ownership =
    typeof body.ownership_challenge === "string" && needsOwnershipChallenge(job.destination_conf)
      ? ctx.client.request<unknown>("POST", `${at.base}/logpush/ownership/validate`, {
          body: { destination_conf: job.destination_conf, ownership_challenge: body.ownership_challenge },
          idempotent: true,
        })
      : undefined;
  // Its failure is reported below, or does not matter when the destination is not valid.
  ownership?.catch(() => undefined);
  try {
    const res = await validation;
    const validity = checkAnswer(res, "validate/destination");
    if (typeof validity === "string") return `logpush job "${job.name}": ${validity}`;
    if (validity.valid === false)
      return (
        `logpush job "${job.name}": the destination ${shown} is not valid: ` +
        `${scrub(validity.message || "the API gave no reason")}`
      );
    if (!ownership) return undefined;
    const owned = checkAnswer(await ownership, "ownership/validate");
    if (typeof owned === "string") return `logpush job "${job.name}": ${owned}`;
    if (owned.valid === false) {
      return (
        `logpush job "${job.name}": the ownership_challenge is not the token Cloudflare wrote for ` +
        `${stripDestinationSecrets(job.destination_conf)}; ` +
        `request a new one with: zoneform logpush challenge --${at.word} ${at.id} --destination ` +
        `'${stripDestinationSecrets(job.destination_conf)}'`
      );
    }
    return undefined;
  } catch (err) {
    if (!(err instanceof ApiError || err instanceof NetworkError)) throw err;
    return `logpush job "${job.name}": checking the destination ${shown}: ${scrub(err.message)}`;
  }
}
