// A URL as Page Shield reports it is text an attacker chooses: its parts are read from that text, before any URL
// parser tidies it up.
// Spec: docs/pci-script-inventory.md.

export interface UrlParts {
  /** Lower-cased, without `:`. */
  scheme: string;
  /** Everything between `//` and the first `/`, `?`, `#` or `\`. */
  authority: string;
  /** What stands before the last `@` of the authority (`user`, `user:pass`), when there is one. */
  userinfo?: string;
  /** The host as written (no user info, no port), not lower-cased. */
  host: string;
  port?: string;
  /** Whether the authority is followed by a `/`, `?`, `#` or `\`. */
  closed: boolean;
}

const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\\]*)/;

/** The parts of an absolute `scheme://…` URL as written, or undefined for anything else (data:, relative). */
export function urlParts(url: string): UrlParts | undefined {
  const m = ABSOLUTE.exec(url);
  if (!m) return undefined;
  const authority = m[2]!;
  const at = authority.lastIndexOf("@");
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  // An IPv6 literal keeps its colons (and its brackets): the port is what follows `]:`.
  const colon = hostPort.startsWith("[") ? hostPort.indexOf("]:", 1) + 1 || -1 : hostPort.lastIndexOf(":");
  return {
    scheme: m[1]!.toLowerCase(),
    authority,
    ...(at >= 0 ? { userinfo: authority.slice(0, at) } : {}),
    host: colon >= 0 ? hostPort.slice(0, colon) : hostPort,
    ...(colon >= 0 ? { port: hostPort.slice(colon + 1) } : {}),
    closed: m[0].length < url.length,
  };
}

/** Whether the URL carries user info (`user@`, `user:pass@`) before its host. */
export function hasUserinfo(url: string): boolean {
  return urlParts(url)?.userinfo !== undefined;
}

const INVISIBLE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00a0, 0x00a0],
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x2000, 0x200f],
  [0x202a, 0x202f],
  [0x205f, 0x206f],
  [0x3000, 0x3000],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0x1d173, 0x1d17a],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
];

function isInvisible(ch: string): boolean {
  const code = ch.codePointAt(0)!;
  return INVISIBLE_RANGES.some(([lo, hi]) => code >= lo && code <= hi);
}

/** Whether the text may hold one: every such character is outside printable ASCII. */
function mayHoldInvisible(text: string): boolean {
  return /[^\u0000-\u007f]/.test(text);
}

/** The invisible characters of `text`, each once, as `U+200B` in order of appearance. */
export function invisibleCharacters(text: string): string[] {
  if (!mayHoldInvisible(text)) return [];
  const out = new Set<string>();
  for (const ch of text)
    if (isInvisible(ch)) out.add(`U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`);
  return [...out];
}

/** `text` without its invisible characters (what a reader of a report believes it says). */
export function withoutInvisible(text: string): string {
  if (!mayHoldInvisible(text)) return text;
  let out = "";
  for (const ch of text) if (!isInvisible(ch)) out += ch;
  return out;
}
