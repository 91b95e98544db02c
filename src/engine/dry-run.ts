// Cloudflare's own check before the first write: each write with a documented dry run is sent first with
// `?dry_run=true` and its exact body, so a change Cloudflare refuses stops the run before anything is written.
// A check persists nothing, so the client retries it as a read.
import type { CloudflareClient } from "../cloudflare/index.js";
import { ApiError, ApplyError, NetworkError, RunStoppedError, RuntimeError, ZoneformError } from "../errors.js";
import type { Change, HttpMethod, Operation, Plan, SecretValues, ZonePlan } from "../model/index.js";
import { holdsReference, readOnly, resolving } from "../secrets/index.js";
import { clipJson } from "../redact.js";
import { describeChange, errorHints } from "./execute.js";
import { unitLimiter } from "./read.js";

const DRY_RUN_WRITES: ReadonlyArray<{ method: HttpMethod; path: RegExp }> = [
  { method: "POST", path: /^zones\/[^/]+\/rulesets$/ },
  { method: "PUT", path: /^zones\/[^/]+\/rulesets\/phases\/[^/]+\/entrypoint$/ },
  { method: "PUT", path: /^zones\/[^/]+\/rulesets\/(?!phases$)[^/]+$/ },
  { method: "DELETE", path: /^zones\/[^/]+\/rulesets\/(?!phases$)[^/]+$/ },
  { method: "POST", path: /^zones\/[^/]+\/rulesets\/[^/]+\/rules$/ },
  { method: "PATCH", path: /^zones\/[^/]+\/rulesets\/[^/]+\/rules\/[^/]+$/ },
  { method: "DELETE", path: /^zones\/[^/]+\/rulesets\/[^/]+\/rules\/[^/]+$/ },
];

export function takesDryRun(op: Operation): boolean {
  if (op.query !== undefined && Object.keys(op.query).length > 0) return false;
  return DRY_RUN_WRITES.some((w) => w.method === op.method && w.path.test(op.path));
}

export function writesToCheck(plan: Plan): Array<{ zone: ZonePlan; label: string; change: Change; op: Operation }> {
  return plan.zones.flatMap((zone) =>
    zone.changes.flatMap((change) =>
      change.operations.filter(takesDryRun).map((op) => ({ zone, label: zone.name ?? zone.zone_id, change, op })),
    ),
  );
}

export interface CheckReport {
  /** Writes sent as dry runs. */
  checked: number;
  refused: string[];
  /** Refused with 403: the token may not make this write (its permission is named). */
  forbidden: string[];
  answeredAsWrite: string[];
  /** Writes not checked before the review because they carry a secret: apply checks them. */
  atApply: number;
}

export interface CheckOptions {
  client: CloudflareClient;
  /** The values of the plan's references, at apply: the dry runs carry them. */
  secrets?: SecretValues;
  parallelism?: number;
  /** Told once before the checks (how many) and once after (what they found). */
  progress?: (line: string) => void;
}

function failure(err: unknown, op: Operation): string {
  const sent = `${op.method} ${op.path}?dry_run=true`;
  if (err instanceof ApiError) {
    // A 4xx, or a 2xx saying success: false: Cloudflare's refusal, in its words (a 403 names the permission).
    if (err.status < 500) return err.message;
    return (
      `${sent}: the check could not be made: Cloudflare answered HTTP ${err.status}` +
      (err.info.errors.length > 0 ? ` (${err.info.errors.map((e) => e.message).join("; ")})` : "")
    );
  }
  if (err instanceof NetworkError) return `${sent}: the check could not be made: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

export async function checkWrites(plan: Plan, opts: CheckOptions): Promise<CheckReport> {
  const all = writesToCheck(plan);
  const writes = opts.secrets ? all : all.filter((w) => !holdsReference(w.op.body));
  const client = opts.secrets ? resolving(opts.client, opts.secrets) : readOnly(opts.client);
  const report: CheckReport = {
    checked: 0,
    refused: [],
    forbidden: [],
    answeredAsWrite: [],
    atApply: all.length - writes.length,
  };
  if (writes.length === 0) return report;
  opts.progress?.(`Checking ${writes.length} ruleset write(s) with Cloudflare first (dry_run=true)`);
  // As apply's writes: started at once per lane of the client (a token), which caps what is in flight.
  const limitOf = unitLimiter(opts.client, opts.parallelism);
  const settled = await Promise.allSettled(
    writes.map(({ zone, label, change, op }) =>
      limitOf(zone)(async () => {
        const what = describeChange(label, change);
        report.checked += 1;
        try {
          const result = await client.request<unknown>(op.method, op.path, {
            query: { dry_run: "true" },
            body: op.body,
            idempotent: true,
          });
          if (result !== null) {
            report.answeredAsWrite.push(
              `${what}: ${op.method} ${op.path}?dry_run=true was answered with a result (${clipJson(result, 60)}) ` +
                "where a dry run answers none: Cloudflare may have made this write",
            );
          }
        } catch (err) {
          if (err instanceof RunStoppedError || !(err instanceof ZoneformError)) throw err;
          const hints = errorHints(change, err);
          const line = `${what}: ${failure(err, op)}${hints.length > 0 ? `. ${hints.join(". ")}` : ""}`;
          if (err instanceof ApiError && err.status === 403) report.forbidden.push(line);
          else report.refused.push(line);
        }
      }),
    ),
  );
  const thrown = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (thrown) throw thrown.reason;
  const bad = report.refused.length + report.forbidden.length + report.answeredAsWrite.length;
  opts.progress?.(
    bad === 0
      ? `Cloudflare accepted the ${report.checked} ruleset write(s) checked (dry_run=true)`
      : `Cloudflare refused ${bad} of the ${report.checked} ruleset write(s) checked (dry_run=true)`,
  );
  return report;
}

export function assertChecked(report: CheckReport, opts: { forbiddenRefuses?: boolean; by?: string } = {}): void {
  const forbidden = opts.forbiddenRefuses === false ? [] : report.forbidden;
  const lines = [
    ...report.answeredAsWrite.map((l) => `  may be made: ${l}`),
    ...forbidden.map((l) => `  refused:     ${l}`),
    ...report.refused.map((l) => `  refused:     ${l}`),
  ];
  if (report.answeredAsWrite.length > 0) {
    throw new ApplyError(
      [
        `Cloudflare answered ${report.answeredAsWrite.length} of the ${report.checked} check(s) (dry_run=true) ` +
          "with a result, as it answers a write and never a dry run: those writes may have been made. Nothing " +
          "else was sent.",
        ...lines,
        "Run plan again to see the live state.",
      ].join("\n"),
      { done: [], failed: [...forbidden, ...report.refused], notDone: [], uncertain: report.answeredAsWrite },
    );
  }
  const refused = forbidden.length + report.refused.length;
  if (refused === 0) return;
  throw new RuntimeError(
    [
      `Cloudflare refused ${refused} of the plan's ${report.checked} ruleset write(s) when they were checked ` +
        "first (dry_run=true); nothing was written.",
      ...lines,
      forbidden.length > 0
        ? "Give the token the permission named, or fix the file, and run apply again."
        : opts.by === "plan"
          ? "Applying this plan would fail there: fix the cause, then plan again."
          : "Fix the cause and run apply again.",
    ].join("\n"),
  );
}
