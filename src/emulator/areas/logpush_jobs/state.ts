// Logpush jobs of an emulated zone or account, and the counter their ids come from.

export type LogpushJob = Record<string, unknown> & { id: number };

interface LogpushZoneState {
  logpush_jobs: LogpushJob[];
}

interface LogpushAccountState {
  logpush_jobs: LogpushJob[];
}

interface LogpushCounters {
  next_job_id: number;
}

declare module "../../types.js" {
  interface AreaStates {
    logpush_jobs: { zone: LogpushZoneState; account: LogpushAccountState; state: LogpushCounters };
  }
}
