// The first line of the Action's pull-request comment.

export type PlanMarker =
  | { kind: "plan"; digest: string; head: string; run: string }
  | { kind: "failed"; head: string; run: string };

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const SHA = /^[0-9a-f]{40}$/;
const RUN_ID = /^[1-9][0-9]{0,18}$/;
const LINE =
  /^<!-- zoneform:plan v2 (?:digest=(sha256:[0-9a-f]{64})|(failed)) head=([0-9a-f]{40}) run=([1-9][0-9]{0,18}) -->$/;

export function isCommitSha(s: unknown): s is string {
  return typeof s === "string" && SHA.test(s);
}

export function isRunId(s: unknown): s is string {
  return typeof s === "string" && RUN_ID.test(s);
}

export function isDigest(s: unknown): s is string {
  return typeof s === "string" && DIGEST.test(s);
}

export function markerLine(m: PlanMarker): string {
  if (!isCommitSha(m.head)) throw new Error(`marker: head ${JSON.stringify(m.head)} is not a commit sha`);
  if (!isRunId(m.run)) throw new Error(`marker: run ${JSON.stringify(m.run)} is not a run id`);
  if (m.kind === "plan" && !isDigest(m.digest))
    throw new Error(`marker: digest ${JSON.stringify(m.digest)} is not sha256:<64 hex>`);
  const what = m.kind === "plan" ? `digest=${m.digest}` : "failed";
  return `<!-- zoneform:plan v2 ${what} head=${m.head} run=${m.run} -->`;
}

export function readMarker(body: unknown): PlanMarker | undefined {
  if (typeof body !== "string") return undefined;
  const end = body.indexOf("\n");
  const m = LINE.exec(end < 0 ? body : body.slice(0, end));
  if (!m) return undefined;
  const [, digest, failed, head, run] = m;
  return failed
    ? { kind: "failed", head: head!, run: run! }
    : { kind: "plan", digest: digest!, head: head!, run: run! };
}
