// Failures every call shares (nothing listens, the name does not resolve, not the Cloudflare API), stopping
// the run with one message instead of one per call; only until the API has answered once.
// Spec: docs/connecting.md, Credentials and endpoint.
import { ApiError } from "../errors.js";

const API_PREFIX = "/client/v4";

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"]);

export type BaseUrlSource = "--api-url" | "CLOUDFLARE_API_BASE_URL" | "default";

const CLOUDFLARE_API = "https://api.cloudflare.com/client/v4";

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

export function notTheApiCause(baseUrl: string, err: unknown): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  const path = new URL(baseUrl).pathname.replace(/\/+$/, "");
  const lacksPrefix = !path.endsWith(API_PREFIX);
  // A 404 is the base URL's fault only without the prefix: with it, it may be a proxy's on one path.
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
