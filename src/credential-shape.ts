// What a Cloudflare credential looks like (Cloudflare docs "Token formats"), to catch one pasted where
// `${env:NAME}` belongs and to keep one out of a saved plan; and where a destination URL carries one
// (`destinationCredentials`), the one detector behind redaction, `export` and `validate`. Pure; no imports.
//
// - Scannable credentials (since 2026): `cfk_` (global API key), `cfut_` (user API token), `cfat_`
//   (account API token), then 40 characters and a checksum. Unmistakable: caught anywhere in a text.
// - Older API tokens: 40 characters of `[A-Za-z0-9_-]`. Also what a 40-hex SHA-1 or a name might be,
//   so caught only as a whole value where a credential belongs, or anywhere when the 40 characters mix
//   upper case, lower case and digits (a hex id, hash or word does not).
// - Older global API keys: 37 to 45 lower-case hex digits. Hex ids and hashes look alike (zone ids are
//   32, SHA-256 hashes 64), so only as a whole value where a credential belongs.

export type CredentialKind =
  | "Cloudflare API token (cfut_/cfat_)"
  | "Cloudflare global API key (cfk_)"
  | "Cloudflare API token"
  | "Cloudflare global API key";

/** A prefix, the 40-character body and its checksum (of a length the docs leave open), bounded. */
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

/**
 * The kind of credential `text` holds, if any. `inCredentialPlace`: the value sits where a credential
 * makes sense (a key named like one, a Logpush destination's parameter or path segment, an ownership
 * challenge), so a whole 40-character token or 37–45-hex key counts there.
 */
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

/**
 * Query parameter names of a destination URL whose value is a credential: keys, secrets, tokens,
 * passwords (`pass`, `password`, `passwd`, `pwd`, `p`), signatures (`sig`, `signature`, SAS), Azure
 * Functions' `code`, authorisation, and every `header_…` (a header sent with each push).
 */
const CREDENTIAL_PARAM =
  /(secret|key|token|passw|pwd|auth|credential|signature|^sig|sig$|sas|^header_|^pass$|^p$|^code$|^apikey$)/i;

export function isCredentialParam(name: string): boolean {
  return CREDENTIAL_PARAM.test(name);
}

/**
 * A value that looks like a generated credential: 16 or more characters of a token alphabet with
 * upper case, lower case and digits all present (base64-like). Bucket names, regions, hex account
 * ids and dates do not qualify.
 */
export function isTokenValue(value: string): boolean {
  return (
    value.length >= 16 &&
    /^[A-Za-z0-9+/=_.~-]+$/.test(value) &&
    /[A-Z]/.test(value) &&
    /[a-z]/.test(value) &&
    /[0-9]/.test(value)
  );
}

/**
 * A path segment that looks like a credential: a token value (above), or a run of 32 or more hex
 * digits (a webhook or collector token in the path; a path has no zone or account id in it).
 */
export function isTokenSegment(segment: string): boolean {
  return isTokenValue(segment) || /^[0-9a-f]{32,}$/i.test(segment);
}

/** Where a destination URL carries a credential. */
export interface DestinationCredential {
  /**
   * `userinfo`: the whole `user:password@` part (or `token@`); `password`: the password after a plain
   * user name; `param`: a query parameter's value; `path`: a path segment.
   */
  kind: "userinfo" | "password" | "param" | "path";
  /** The parameter's name (decoded) for `param`; the segment's number (1, 2, …) for `path`. */
  name: string;
  /** The credential's place in the destination as written: [start, end). */
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

/**
 * Every place of `destination` (a Logpush destination_conf, any URL) that carries a credential, in
 * order: the user info of `scheme://user:password@host` (the password alone when the user name is
 * plain, the whole when the user is itself a token or there is no password), each query parameter
 * named like a credential (isCredentialParam) or whose value looks like one (isTokenValue) or is a URL
 * that carries one (an Azure SAS URL in `blob-container-url`), and each path segment that looks like
 * one (isTokenSegment). Empty values are none; a part written with a `${…}` reference is left to the
 * caller (`validate` skips it: a reference is what the file should hold).
 */
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

/**
 * The text with every credential-shaped piece replaced by `replacement`: prefixed credentials and
 * mixed-case 40-character runs anywhere; a query parameter's whole value (`?name=value`) also when it
 * is a 40-character token or a 37–45-hex key. `${env:NAME}` references are left as they are.
 */
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
