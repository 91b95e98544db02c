// The logpush section's part of a zone.
// Spec: docs/configuration.md, `logs.logpush_jobs`.
import type { ZoneBase } from "../../model/index.js";

/** A logpush filter as written in YAML: `where` holding nested `and` / `or` groups and leaves. */
export type FilterNode =
  | { and: FilterNode[] }
  | { or: FilterNode[] }
  | { key: string; operator: string; value: unknown };

export interface LogpushFilter {
  where: FilterNode | Record<string, never>;
}

export interface DesiredLogpushJob {
  id?: string;
  name: string;
  dataset: string;
  destination_conf: string;
  ownership_challenge?: string;
  enabled: boolean;
  kind?: "" | "edge";
  filter?: LogpushFilter;
  output_options?: Record<string, unknown>;
  max_upload_bytes?: number;
  max_upload_interval_seconds?: number;
  max_upload_records?: number;
  /** true excludes DDoS attack traffic (http_requests, firewall_events, network_analytics_logs only). */
  filter_attack_traffic?: boolean;
}

export interface LogpushZone {
  logs?: {
    /** Absent: jobs are not managed. */
    logpush_jobs?: DesiredLogpushJob[];
    /** false keeps live logpush jobs that the file does not list. */
    prune: boolean;
  };
}

export type ZoneWithLogpush = ZoneBase & LogpushZone;

export interface LogpushFileZone {
  logs?: {
    logpush_jobs?: Array<Omit<DesiredLogpushJob, "enabled" | "id"> & { enabled?: boolean; id?: unknown }>;
    prune?: boolean;
  };
}

/** The section's part of an entry of `accounts:`: the account's own Logpush jobs (`accounts/{id}/logpush/jobs`). */
export interface LogpushAccount {
  /** Absent: the account's jobs are not managed. */
  logpush_jobs?: DesiredLogpushJob[];
}

export type AccountWithLogpush = ZoneBase & LogpushAccount & { prune: boolean };

/** The section's part of an entry of `accounts:` in the file. */
export interface LogpushFileAccount {
  logpush_jobs?: Array<Omit<DesiredLogpushJob, "enabled" | "id"> & { enabled?: boolean; id?: unknown }>;
}
