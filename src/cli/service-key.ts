// Cloudflare ended Service Key authentication: a run that finds one in the environment says so, and never sends it.
// Spec: docs/connecting.md, credentials and endpoint.
import { printable } from "../safe-text.js";

const SERVICE_KEY_END = "2026-09-30";

/**
 * The variables of the environment that hold a Cloudflare Service Key, by name: CLOUDFLARE_API_USER_SERVICE_KEY,
 * CF_API_USER_SERVICE_KEY, X-Auth-User-Service-Key (the header's name), any CLOUDFLARE_… or CF_… SERVICE_KEY.
 */
export function serviceKeyVariables(env: Record<string, string | undefined>): string[] {
  return Object.keys(env)
    .filter((name) => (env[name] ?? "").trim() !== "")
    .filter((name) => /user[_-]?service[_-]?key/i.test(name) || /^(cloudflare|cf)_.*service[_-]?key$/i.test(name))
    .sort();
}

/**
 * The one line a run says when the environment holds a Service Key: it is never sent (Cloudflare ended Service Key
 * authentication on 2026-09-30) and what to use instead.
 */
export function serviceKeyNotice(env: Record<string, string | undefined>): string | undefined {
  const names = serviceKeyVariables(env);
  if (names.length === 0) return undefined;
  return (
    `warning: ${names.map((n) => printable(n)).join(", ")} ${names.length > 1 ? "are" : "is"} set, but Service Key ` +
    `authentication ended on ${SERVICE_KEY_END} and zoneform never sends one: use an API token in ` +
    "CLOUDFLARE_API_TOKEN instead " +
    "(https://github.com/zoneform/zoneform/blob/main/docs/connecting.md#credentials-and-endpoint)"
  );
}
