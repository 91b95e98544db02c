// Logpush for zones and accounts.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import type { EmulatorArea } from "../../area.js";
import { isObject } from "../../validate.js";
import { objectOf, RecordedAnswerError, upsert } from "../../recorded-items.js";
import type { EmulatorState } from "../../types.js";
import { admin } from "./admin.js";
import { routes } from "./routes.js";
import type { LogpushJob } from "./state.js";

export const logpush: EmulatorArea = {
  name: "logpush_jobs",
  routes,
  idParams: { job_id: (v) => /^[0-9]+$/.test(v) },
  emptyZone: () => ({ logpush_jobs: [] }),
  emptyAccount: () => ({ logpush_jobs: [] }),
  // A state document without next_job_id counts on from its highest job id.
  state: ({ input, zones, accounts }) => ({
    next_job_id:
      typeof input?.next_job_id === "number"
        ? input.next_job_id
        : input === undefined
          ? 1
          : Math.max(0, ...[...zones, ...accounts].flatMap((z) => z.logpush_jobs.map((j) => Number(j.id) || 0))) + 1,
  }),
  recorded: [
    { path: "zones/:zone/logpush/jobs", load: (ctx, [z], r) => (ctx.zone(z!).logpush_jobs = jobsOf(ctx.state, r)) },
    {
      path: "zones/:zone/logpush/jobs/:id",
      load: (ctx, [z], r) => upsert(ctx.zone(z!).logpush_jobs, jobsOf(ctx.state, [objectOf(r, "logpush job")])[0]!),
    },
    {
      path: "accounts/:account/logpush/jobs",
      load: (ctx, [a], r) => (ctx.account(a!).logpush_jobs = jobsOf(ctx.state, r)),
    },
  ],
  admin,
};

/** Jobs as recorded; later jobs created through the API get ids above every loaded one. */
function jobsOf(state: EmulatorState, result: unknown): LogpushJob[] {
  const jobs = (Array.isArray(result) ? result : []).map((j, i) => {
    if (!isObject(j) || !Number.isInteger(j.id)) throw new RecordedAnswerError(`logpush job ${i} has no integer id`);
    return j as LogpushJob;
  });
  state.next_job_id = Math.max(state.next_job_id, ...jobs.map((j) => j.id + 1));
  return jobs;
}
