// The Logpush jobs kind, for zones and for accounts: reads the jobs and matches them to the file's.
// Spec: docs/configuration.md, `logs.logpush_jobs`.
import { AnswerShapeError } from "../../errors.js";
import type { DesiredLogpushJob } from "./types.js";
import type { AccountWithLogpush, ZoneWithLogpush } from "./types.js";
import type { ZoneBase, Change } from "../../model/index.js";
import { clipJson } from "../../redact.js";
import { matchIdentities, type IdentityRule } from "../shared/identity-list.js";
import { compareDigits, normalizeLiveJob, type LiveLogpushJob } from "./live.js";
import type { ResourceKind } from "../types.js";
import {
  RESOURCE,
  UPLOAD_LIMITS,
  challengeError,
  createChange,
  deleteChange,
  forcedFields,
  jobsPath,
  replaceChange,
  updateChange,
  withoutId,
  type Where,
} from "./job-changes.js";
import { checkChanges } from "./destination-check.js";

export interface LogpushScope<U extends ZoneBase> {
  /** How messages and `logpush challenge` name the unit: `zone` or `account`. */
  word: "zone" | "account";
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
      // The jobs list is not paginated.
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
      const _zoneId = at.id;
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
          // Only a pinned entry can match a job whose answer states no dataset.
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
          const update = updateChange(at, want, keep);
          if (update.error) errors.push(update.error);
          if (update.change) changes.push(update.change);
        }
      }
      // prune: false never deletes what the file did not match, whatever the live list looks like.
      if (prune) for (const j of unmatched) changes.push(deleteChange(at, j));
      return { changes, errors, warnings };
    },

    check: (ctx, unit, changes) => checkChanges(ctx, where(unit), scope.jobs(unit) ?? [], changes),
  };
}

export const logpushJobs = logpushJobsKind(ZONE_SCOPE);

export const accountLogpushJobs = logpushJobsKind(ACCOUNT_SCOPE);
