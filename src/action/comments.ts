// Which comments of a pull request are the Action's own: those whose author is the token's identity
// (GET /user; github-actions[bot] for the job's GITHUB_TOKEN) and whose first line is its marker
// (marker.ts). Another account's comment, a person's or another app's bot's, is never edited and
// never read for a digest, whatever it starts with. Pure.
import { COMMENT_MARKER } from "../plan/index.js";
import type { Comment, Identity } from "./github.js";
import { readMarker, type PlanMarker } from "./marker.js";

export function authoredBy(c: Comment, who: Identity): boolean {
  const login = c.user?.login;
  if (typeof login !== "string" || login.toLowerCase() !== who.login.toLowerCase()) return false;
  return !who.bot || c.user?.type === "Bot";
}

export interface MarkedComment {
  comment: Comment;
  marker: PlanMarker;
}

/** The identity's comments that carry the marker on line 1, oldest first. */
export function ownMarkedComments(comments: readonly Comment[], who: Identity): MarkedComment[] {
  const out: MarkedComment[] = [];
  for (const comment of [...comments].sort((a, b) => a.id - b.id)) {
    if (!authoredBy(comment, who)) continue;
    const marker = readMarker(comment.body);
    if (marker) out.push({ comment, marker });
  }
  return out;
}

/**
 * The one comment the plan mode keeps up to date: the identity's oldest comment with the marker, else
 * its oldest that starts with the marker of the Action's earlier versions (`<!-- zoneform plan -->` on
 * line 1), else none (a new one is made).
 */
export function planCommentToUpdate(comments: readonly Comment[], who: Identity): Comment | undefined {
  const marked = ownMarkedComments(comments, who)[0];
  if (marked) return marked.comment;
  return [...comments]
    .sort((a, b) => a.id - b.id)
    .find((c) => authoredBy(c, who) && typeof c.body === "string" && c.body.split("\n", 1)[0] === COMMENT_MARKER);
}
