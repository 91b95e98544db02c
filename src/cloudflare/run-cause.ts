// Failures every call of a run shares, recognised on the first of them so that the run stops with one
// message instead of one per call and zone: nothing listens at the base URL, its name does not resolve
// (or the resolver keeps failing), or the base URL answers but is not the Cloudflare API (the
// `/client/v4` prefix left out, a web page). Only while no call of the run has had an answer from the
// API itself: once one has, the same failure is this call's own (a blip, a zone that does not exist).
import { ApiError } from "../errors.js";

/** The API prefix every Cloudflare API base URL ends with. */
const API_PREFIX = "/client/v4";

/** Connection failures that no retry of this run would get past (a resolver's blip once its few tries are spent). */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"]);

/** What set the base URL, for the message that says where to look: a flag, a variable, or neither (the default). */
export type BaseUrlSource = "--api-url" | "CLOUDFLARE_API_BASE_URL" | "default";

/** Cloudflare's API base URL, the one a message suggests. */
const CLOUDFLARE_API = "https://api.cloudflare.com/client/v4";

/**
 * The message for a connection to the base URL that failed before any answer, after `retries` retries, or
 * undefined: it names the URL, its host when the name is the trouble, and what set the URL.
 */
export function unreachableCause(
  baseUrl: string,
  code: string | undefined,
  retries = 0,
  from?: BaseUrlSource,
): string | undefined {
  if (code === undefined || !UNREACHABLE.has(code)) return undefined;
  const host = new URL(baseUrl).hostname;
  const tries = `${retries + 1} ${retries === 0 ? "try" : "tries"}`;
  const what =
    code === "ECONNREFUSED"
      ? "nothing accepts connections there"
      : code === "ENOTFOUND"
        ? `its host name ${host} does not resolve`
        : `the resolver could not look up its host name ${host} (a temporary failure, ${tries})`;
  return `cannot connect to the API at ${baseUrl} (${code}): ${what}. ${whereToLook(from)}`;
}

/** Where the user fixes a base URL nothing answers at: the flag or variable that set it, else the network. */
function whereToLook(from: BaseUrlSource | undefined): string {
  const cloudflare = `(Cloudflare's is ${CLOUDFLARE_API})`;
  if (from === undefined) return `Check --api-url / CLOUDFLARE_API_BASE_URL ${cloudflare} and the network`;
  if (from === "default")
    return (
      "That is Cloudflare's URL, the default (neither --api-url nor CLOUDFLARE_API_BASE_URL is set): " +
      "check the network and its DNS"
    );
  return `The URL comes from ${from}: check it ${cloudflare} and the network`;
}

/**
 * The message for an answer that shows the base URL is not the API, or undefined: a 404 (an HTML page,
 * an envelope) from a base URL without the /client/v4 prefix, or a success that is not the API's JSON
 * envelope (another service's JSON), to the first calls of a run.
 */
export function notTheApiCause(baseUrl: string, err: unknown): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  const path = new URL(baseUrl).pathname.replace(/\/+$/, "");
  const lacksPrefix = !path.endsWith(API_PREFIX);
  // JSON of another service answering success is never the API. A 404 is the base URL's fault only
  // when it lacks the prefix: with it, an HTML 404 may be a proxy's answer on one path (a zone error).
  const ok = err.status >= 200 && err.status < 300;
  if (!(ok && err.info.envelope === false) && !(lacksPrefix && (err.status === 404 || err.status === 405)))
    return undefined;
  const said =
    err.info.envelope === false
      ? `an answer that is not the API's JSON envelope (HTTP ${err.status})`
      : `HTTP ${err.status}`;
  const hint = lacksPrefix
    ? `did you mean ${baseUrl.replace(/\/+$/, "")}${API_PREFIX}?`
    : "is --api-url / CLOUDFLARE_API_BASE_URL right?";
  return (
    `the base URL ${baseUrl} does not look like the Cloudflare API (${err.info.method} ${err.info.path} got ` +
    `${said}): ${hint} ` +
    "Set --api-url / CLOUDFLARE_API_BASE_URL to the API's base, e.g. https://api.cloudflare.com/client/v4"
  );
}
