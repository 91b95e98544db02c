// What a Cloudflare credential looks like.

export type CredentialKind =
  | "Cloudflare API token (cfut_/cfat_)"
  | "Cloudflare global API key (cfk_)"
  | "Cloudflare API token"
  | "Cloudflare global API key";

const PREFIXED = /(?<![A-Za-z0-9_-])(cfut|cfat|cfk)_[A-Za-z0-9_-]{40,80}(?![A-Za-z0-9_-])/g;
const TOKEN_40 = /^[A-Za-z0-9_-]{40}$/;
/** A bounded run of exactly 40 token characters inside a text. */
const TOKEN_40_RUN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{40}(?![A-Za-z0-9_-])/g;
const HEX_KEY = /^[0-9a-f]{37,45}$/;

function mixed(s: string): boolean {
  return /[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s);
}

function prefixedKind(prefix: string): CredentialKind {
  return prefix === "cfk" ? "Cloudflare global API key (cfk_)" : "Cloudflare API token (cfut_/cfat_)";
}

/** The kind of credential `text` holds, if any. */
export function credentialIn(text: string, inCredentialPlace = false): CredentialKind | undefined {
  for (const m of text.matchAll(PREFIXED)) return prefixedKind(m[1]!);
  if (TOKEN_40.test(text) && (inCredentialPlace || mixed(text))) return "Cloudflare API token";
  if (inCredentialPlace && HEX_KEY.test(text)) return "Cloudflare global API key";
  for (const m of text.matchAll(TOKEN_40_RUN)) if (mixed(m[0])) return "Cloudflare API token";
  return undefined;
}

/** Names of keys and parameters whose value is a credential by name. */
const CREDENTIAL_NAME = /(secret|key|token|passw|pwd|auth|credential|signature|^sig$|sas)/i;

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

const CREDENTIAL_PARAM =
  /(secret|key|token|passw|pwd|auth|credential|signature|^sig|sig$|sas|^header_|^pass$|^p$|^code$|^apikey$)/i;

export function isCredentialParam(name: string): boolean {
  return CREDENTIAL_PARAM.test(name);
}

export function isTokenValue(value: string): boolean {
  return (
    value.length >= 16 &&
    /^[A-Za-z0-9+/=_.~-]+$/.test(value) &&
    /[A-Z]/.test(value) &&
    /[a-z]/.test(value) &&
    /[0-9]/.test(value)
  );
}

export function isTokenSegment(segment: string): boolean {
  return isTokenValue(segment) || /^[0-9a-f]{32,}$/i.test(segment);
}

/** Where a destination URL carries a credential. */
export interface DestinationCredential {
  kind: "userinfo" | "password" | "param" | "path";
  /** The parameter's name (decoded) for `param`; the segment's number (1, 2, …) for `path`. */
  name: string;
  start: number;
  end: number;
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function destinationCredentials(destination: string, depth = 0): DestinationCredential[] {
  const out: DestinationCredential[] = [];
  const hash = destination.indexOf("#");
  const end = hash < 0 ? destination.length : hash;
  const q = destination.indexOf("?");
  const queryAt = q >= 0 && q < end ? q : end;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(destination);
  let pathAt = 0;
  if (scheme) {
    const authorityAt = scheme[0].length;
    const slash = destination.indexOf("/", authorityAt);
    const authorityEnd = Math.min(slash < 0 ? queryAt : slash, queryAt);
    const at = destination.lastIndexOf("@", authorityEnd - 1);
    if (at >= authorityAt) {
      const colon = destination.indexOf(":", authorityAt);
      const user = colon >= 0 && colon < at ? destination.slice(authorityAt, colon) : undefined;
      if (user !== undefined && user !== "" && !isTokenSegment(decoded(user)) && colon + 1 < at)
        out.push({ kind: "password", name: "password", start: colon + 1, end: at });
      else if (at > authorityAt) out.push({ kind: "userinfo", name: "userinfo", start: authorityAt, end: at });
    }
    pathAt = authorityEnd;
  }
  let segment = 0;
  let from = pathAt;
  while (from < queryAt) {
    if (destination[from] === "/") from += 1;
    let to = destination.indexOf("/", from);
    if (to < 0 || to > queryAt) to = queryAt;
    if (scheme && to > from) {
      segment += 1;
      if (isTokenSegment(decoded(destination.slice(from, to))))
        out.push({ kind: "path", name: String(segment), start: from, end: to });
    }
    from = to;
  }
  if (queryAt < end) {
    let at = queryAt + 1;
    for (const pair of destination.slice(queryAt + 1, end).split("&")) {
      const eq = pair.indexOf("=");
      if (eq > 0 && eq < pair.length - 1) {
        const name = decoded(pair.slice(0, eq));
        const value = pair.slice(eq + 1);
        const inner = decoded(value);
        if (
          isCredentialParam(name) ||
          isTokenValue(inner) ||
          (depth < 2 && /^[a-z][a-z0-9+.-]*:\/\//i.test(inner) && destinationCredentials(inner, depth + 1).length > 0)
        )
          out.push({ kind: "param", name, start: at + eq + 1, end: at + pair.length });
      }
      at += pair.length + 1;
    }
  }
  return out;
}

export function hideCredentialShapes(text: string, replacement: string): string {
  if (text.length < 37) return text;
  let out = text.replace(PREFIXED, replacement).replace(TOKEN_40_RUN, (run) => (mixed(run) ? replacement : run));
  if (out.includes("?")) {
    out = out.replace(/([?&][^=&\s"'<>]+=)([A-Za-z0-9_-]{37,45})(?=$|[&#\s"'])/g, (whole, head: string, v: string) =>
      TOKEN_40.test(v) || HEX_KEY.test(v) ? `${head}${replacement}` : whole,
    );
  }
  return out;
}
