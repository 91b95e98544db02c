// `logs.logpush_jobs` (and `logs.prune`): the zone's Logpush jobs, each matched by the id it pins, else by name and
// dataset.
// Spec: docs/configuration.md, `logs.logpush_jobs`.
import { plural } from "../shared/words.js";
import type { Section } from "../types.js";
import { exportLogpush } from "./export.js";
import { isEmptyFilter } from "./filter.js";
import { accountLogpushJobs, logpushJobs as logpushJobsKind } from "./logpush-jobs.js";
import { LOGPUSH_RULES } from "./rules.js";
import type {
  DesiredLogpushJob,
  LogpushAccount,
  LogpushFileAccount,
  LogpushFileZone,
  LogpushFilter,
  LogpushZone,
} from "./types.js";
import type { AccountSection } from "../types.js";

export type * from "./types.js";
export { jobsOf, literalSecretParams } from "./rules.js";
// What `logpush challenge` builds on: a destination's scheme and bucket, and whether it needs a challenge.
export { destinationBucket, destinationScheme, needsOwnershipChallenge } from "./live.js";

const accountPart: AccountSection<LogpushAccount, LogpushFileAccount> = {
  key: "logpush_jobs",
  kinds: [accountLogpushJobs],
  normalize(file, out) {
    if (file.logpush_jobs) out.logpush_jobs = file.logpush_jobs.map(normalizeJob);
  },
  async export(ctx) {
    const { prune, jobs } = await exportLogpush(ctx);
    return { ...(prune === false ? { prune: false } : {}), logpush_jobs: jobs };
  },
  summary: (account) =>
    account.logpush_jobs ? [`logpush (${plural(account.logpush_jobs.length, "job", "jobs")})`] : [],
  permissions: [
    {
      name: "Logs",
      scope: "account",
      read: "Edit",
      write: "Edit",
      paths: [/^accounts\/[^/]+\/logpush/],
      label: "accounts[].logpush_jobs",
    },
  ],
};

export const logpushJobs: Section<LogpushZone, LogpushFileZone> & {
  account: AccountSection<LogpushAccount, LogpushFileAccount>;
} = {
  name: "logpush_jobs",
  formerNames: ["logpush"],
  path: "logs.logpush_jobs",
  kinds: [logpushJobsKind],
  owns: (zone) => zone.logs?.logpush_jobs !== undefined,
  normalize(file, out) {
    if (!file.logs || !out.logs) return;
    // `prune` is the jobs'.
    out.logs.prune = file.logs.prune ?? true;
    if (file.logs.logpush_jobs) out.logs.logpush_jobs = file.logs.logpush_jobs.map(normalizeJob);
  },
  async export(ctx) {
    const { prune, jobs } = await exportLogpush(ctx);
    return { logs: { ...(prune === false ? { prune: false } : {}), logpush_jobs: jobs } };
  },
  summary: (zone) =>
    zone.logs?.logpush_jobs ? [`logpush (${plural(zone.logs.logpush_jobs.length, "job", "jobs")})`] : [],
  // Logpush jobs hold destination credentials: reading them needs Edit too.
  permissions: [{ name: "Logs", scope: "zone", read: "Edit", write: "Edit", paths: [/^zones\/[^/]+\/logpush/] }],
  // Logpush job ids are integers.
  ids: [{ collection: "jobs", id: /^\d+$/ }],
  rules: LOGPUSH_RULES,
  account: accountPart,
};

function jobIdText(id: unknown): string | undefined {
  if (typeof id === "number" && Number.isSafeInteger(id)) return String(id);
  if (typeof id === "string" && /^[0-9]+$/.test(id)) return id.replace(/^0+(?=\d)/, "");
  return undefined;
}

function normalizeJob(
  job: Omit<DesiredLogpushJob, "enabled" | "id"> & { enabled?: boolean; id?: unknown },
): DesiredLogpushJob {
  const id = jobIdText(job.id);
  const out: DesiredLogpushJob = {
    ...(id !== undefined ? { id } : {}),
    name: job.name,
    dataset: job.dataset,
    destination_conf: job.destination_conf,
    enabled: job.enabled ?? true,
  };
  if (job.ownership_challenge !== undefined) out.ownership_challenge = job.ownership_challenge;
  if (job.kind !== undefined) out.kind = job.kind;
  // `where: {}` is "no filter", the same as no filter key.
  if (job.filter && !isEmptyFilter(job.filter)) out.filter = structuredClone(job.filter) as LogpushFilter;
  if (job.output_options !== undefined) out.output_options = structuredClone(job.output_options);
  if (job.max_upload_bytes !== undefined) out.max_upload_bytes = job.max_upload_bytes;
  if (job.max_upload_interval_seconds !== undefined) out.max_upload_interval_seconds = job.max_upload_interval_seconds;
  if (job.max_upload_records !== undefined) out.max_upload_records = job.max_upload_records;
  if (job.filter_attack_traffic !== undefined) out.filter_attack_traffic = job.filter_attack_traffic;
  return out;
}
