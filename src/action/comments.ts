// Which comments of a pull request are the Action's own.
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

export function planCommentToUpdate(comments: readonly Comment[], who: Identity): Comment | undefined {
  const marked = ownMarkedComments(comments, who)[0];
  if (marked) return marked.comment;
  return [...comments]
    .sort((a, b) => a.id - b.id)
    .find((c) => authoredBy(c, who) && typeof c.body === "string" && c.body.split("\n", 1)[0] === COMMENT_MARKER);
}
