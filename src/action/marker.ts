// The first line of the Action's pull-request comment: an HTML comment (invisible once rendered) that
// only the Action writes, naming what the comment shows: the plan's digest (or that planning failed),
// the pull request's head commit it was made from, and the workflow run that made it and uploaded it.
//
//   <!-- zoneform:plan v2 digest=sha256:<64 hex> head=<40 hex> run=<run id> -->
//   <!-- zoneform:plan v2 failed head=<40 hex> run=<run id> -->
//
// It is read back from line 1 only, with an anchored pattern that leaves no room for anything else:
// everything after the first line is data (a zone name, a live description, an issuer) and decides
// nothing, however it is shaped. Data cannot reach line 1: the Action writes this line first, and
// every value the renderer shows is on a line of its own further down (newlines in data are escaped).
// Pure.

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

/** The marker line (without its newline); throws on a value that is not of its shape. */
export function markerLine(m: PlanMarker): string {
  if (!isCommitSha(m.head)) throw new Error(`marker: head ${JSON.stringify(m.head)} is not a commit sha`);
  if (!isRunId(m.run)) throw new Error(`marker: run ${JSON.stringify(m.run)} is not a run id`);
  if (m.kind === "plan" && !isDigest(m.digest))
    throw new Error(`marker: digest ${JSON.stringify(m.digest)} is not sha256:<64 hex>`);
  const what = m.kind === "plan" ? `digest=${m.digest}` : "failed";
  return `<!-- zoneform:plan v2 ${what} head=${m.head} run=${m.run} -->`;
}

/** The marker on a comment's first line, or undefined when line 1 is not exactly one. */
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
