// Which inventory entry covers a script URL, and whether an unauthorized URL imitates a trusted one.
// Spec: docs/pci-script-inventory.md.
import { invisibleCharacters, isPrefix, urlMatches, urlParts, withoutInvisible } from "../sections/index.js";
import { hostReferences, type Lookalike, lookalikeOf, type ReferenceKind } from "./lookalike.js";
import type { AuthorizedScript } from "./types.js";

/** The entry that covers `url`: an exact one first, else the longest prefix. */
export function authorizationFor(authorized: readonly AuthorizedScript[], url: string): AuthorizedScript | undefined {
  let best: AuthorizedScript | undefined;
  for (const a of authorized) {
    if (!urlMatches(a.url, url)) continue;
    if (!isPrefix(a.url)) return a;
    if (!best || a.url.length > best.url.length) best = a;
  }
  return best;
}

export type LooksLikeKind = ReferenceKind | "entry";

const LOOKS_LIKE_WHAT: Record<LooksLikeKind, string> = {
  authorized: "an authorized host",
  page: "a host of the pages in scope",
  "well-known": "a well-known payment or CDN host",
  entry: "an authorized URL",
};

/** A look-alike host (lookalikeOf), or a URL that is an authorized one once invisible characters go. */
export function lookalikeScript(
  authorized: readonly AuthorizedScript[],
  url: string,
  refs = hostReferences({ authorized: authorized.map((a) => a.url) }),
): (Omit<Lookalike, "looks_like_kind"> & { looks_like_kind?: LooksLikeKind }) | undefined {
  const verdict = lookalikeOf(url, refs);
  if (verdict) return verdict;
  const visible = withoutInvisible(url);
  const entry = visible !== url ? authorizationFor(authorized, visible) : undefined;
  if (!entry) return undefined;
  const chars = invisibleCharacters(url);
  return {
    host: urlParts(url)?.host ?? "",
    looks_like: entry.url,
    looks_like_kind: "entry",
    signals: ["invisible"],
    reasons: [
      `invisible character${chars.length === 1 ? "" : "s"} ${chars.join(", ")} in the URL: without ` +
        `${chars.length === 1 ? "it" : "them"} it reads as ${visible}, which ${entry.url} authorizes`,
    ],
  };
}

export function lookalikeMessage(url: string, look: ReturnType<typeof lookalikeScript> & {}, where: string): string {
  const like = look.looks_like
    ? ` looks like ${LOOKS_LIKE_WHAT[look.looks_like_kind ?? "well-known"]}, ${look.looks_like}`
    : " disguises its host";
  return (
    `look-alike host: ${url}${where ? ` (seen${where})` : ""}${like}: ${look.reasons.join("; ")}; never ` +
    "authorize it, remove it from the page and find out how it got there"
  );
}
