// Logpush jobs of an emulated zone or account, and the counter their ids come from.

/** A Logpush job as stored: exactly the fields its answers show (integer id). */
export type LogpushJob = Record<string, unknown> & { id: number };

interface LogpushZoneState {
  logpush_jobs: LogpushJob[];
}

/** An account's own Logpush jobs (`accounts/{id}/logpush/jobs`). */
interface LogpushAccountState {
  logpush_jobs: LogpushJob[];
}

interface LogpushCounters {
  /** Next logpush job id (integers, account-wide). */
  next_job_id: number;
}

declare module "../../types.js" {
  interface AreaStates {
    logpush_jobs: { zone: LogpushZoneState; account: LogpushAccountState; state: LogpushCounters };
  }
}
