// What a Cloudflare credential looks like (Cloudflare docs "Token formats"), to catch one pasted where
// `${env:NAME}` belongs and to keep one out of a saved plan. Pure; no imports.
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
