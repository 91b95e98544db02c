// Authentication as the v4 API does it: `Authorization: Bearer <token>`, or `X-Auth-Email` with
// `X-Auth-Key` (the global key). Returns the credential's rate-limit key or throws the real error.
import type { IncomingHttpHeaders } from "node:http";
import { authenticationFault, malformedAuthFault, missingAuthFault } from "./envelope.js";
import type { EmulatorState } from "./types.js";

export function authenticate(headers: IncomingHttpHeaders, credentials: EmulatorState["credentials"]): string {
  const authorization = header(headers, "authorization");
  if (authorization !== undefined) {
    const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization);
    if (!m) throw malformedAuthFault();
    const token = m[1]!;
    if (!credentials.tokens.includes(token)) throw authenticationFault();
    return `token:${token}`;
  }
  const email = header(headers, "x-auth-email");
  const key = header(headers, "x-auth-key");
  if (email === undefined || key === undefined) throw missingAuthFault();
  const known = credentials.keys.some((k) => k.email.toLowerCase() === email.toLowerCase() && k.key === key);
  if (!known) throw authenticationFault();
  return `key:${email.toLowerCase()}`;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === "" ? undefined : s.trim();
}
