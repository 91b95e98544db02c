// Asking the API, before the writes, whether a job's destination and its fields are valid.
// Spec: docs/configuration.md, `logs.logpush_jobs`; docs/commands/logpush.md.
import { ApiError, NetworkError } from "../../errors.js";
import type { DesiredLogpushJob } from "./types.js";
import type { Change, Operation } from "../../model/index.js";
import { clipJson, redactDestination } from "../../redact.js";
import { needsOwnershipChallenge, redactDestinationSecrets, stripDestinationSecrets } from "./live.js";
import type { ReadContext } from "../types.js";
import { checkJobFields, fieldsWritten } from "./fields-check.js";
import { RESOURCE, destinationCheckBody, holdsSecret, type Where } from "./job-changes.js";

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

function desiredFor(jobs: readonly DesiredLogpushJob[], change: Change): DesiredLogpushJob | undefined {
  const pinned = change.live_id !== undefined ? jobs.find((j) => j.id === change.live_id) : undefined;
  if (pinned) return pinned;
  const after = (change.after ?? {}) as { name?: unknown; dataset?: unknown };
  return jobs.find((j) => j.id === undefined && j.name === after.name && j.dataset === after.dataset);
}

/** What is wrong with the destination a job would write to, or with the ownership token it would send. */
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

/** Asks the API about every destination and field list the changes would write. */
export async function checkChanges(
  ctx: ReadContext,
  at: Where,
  desired: readonly DesiredLogpushJob[],
  changes: Change[],
): Promise<string[]> {
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
}
