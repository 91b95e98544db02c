// The payment pages' security headers of the script inventory.
// Spec: docs/pci-script-inventory.md.
import { invisibleCharacters, urlParts } from "./url-parts.js";

/** The hosts a payment page may be fetched from over plain `http://`, when private addresses are allowed. */
const LOOPBACK_HOSTS: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

/** The security headers `inventory --headers` drafts pins of, in this order. */
export const SECURITY_HEADERS: readonly string[] = [
  "content-security-policy",
  "content-security-policy-report-only",
  "strict-transport-security",
  "x-frame-options",
  "x-content-type-options",
  "referrer-policy",
  "permissions-policy",
  "cross-origin-opener-policy",
  "cross-origin-embedder-policy",
  "cross-origin-resource-policy",
];

const SESSION_HEADERS: readonly string[] = [
  "set-cookie",
  "set-cookie2",
  "cookie",
  "cookie2",
  "authorization",
  "proxy-authorization",
  "www-authenticate",
  "proxy-authenticate",
  "authentication-info",
  "proxy-authentication-info",
  "x-api-key",
  "x-auth-token",
  "x-access-token",
  "x-refresh-token",
  "x-csrf-token",
  "x-xsrf-token",
  "x-csrftoken",
  "x-session-id",
  "x-amz-security-token",
];

/** The words (between `-` or `_`) that make a header name a session or credential header. */
const SESSION_WORDS: readonly string[] = [
  "session",
  "token",
  "secret",
  "password",
  "passwd",
  "csrf",
  "xsrf",
  "apikey",
  "jwt",
  "auth",
];

/** Whether a header (any case) may carry a session or a credential (SESSION_HEADERS, SESSION_WORDS). */
export function isSessionHeader(name: string): boolean {
  const lower = name.toLowerCase();
  if (SESSION_HEADERS.includes(lower)) return true;
  const words = lower.split(/[-_]/);
  return words.some((w) => SESSION_WORDS.includes(w)) || lower.includes("api-key") || lower.includes("api_key");
}

/** Whether `url` is plain `http://` to a loopback host (127.0.0.1, localhost, [::1]), with any port. */
function isLoopbackHttp(url: string): boolean {
  const parts = urlParts(url);
  return parts?.scheme === "http" && LOOPBACK_HOSTS.includes(parts.host.toLowerCase());
}

export function isInsecurePageUrl(url: string): boolean {
  return urlParts(url)?.scheme === "http" && !isLoopbackHttp(url);
}

/** What is wrong with a page URL of `headers.urls`, or undefined. */
export function pageUrlProblem(url: string): string | undefined {
  const parts = urlParts(url);
  if (!parts || !/^https?$/.test(parts.scheme) || parts.host === "")
    return (
      "a payment page is an absolute https:// URL, as a browser requests it: write e.g. " +
      `https://www.example.com/checkout${/^[a-z0-9.-]+\.[a-z]{2,}(\/|$)/i.test(url) ? ` (https://${url})` : ""}`
    );
  if (/[\u0000-\u0020\u007f-\u009f]/.test(url))
    return "a payment page URL holds no spaces or control characters (percent-encode them: %20)";
  const invisible = invisibleCharacters(url);
  if (invisible.length > 0)
    return `a payment page URL holds no invisible characters (${invisible.join(", ")}): write it as plain text`;
  if (parts.userinfo !== undefined)
    return (
      `a payment page URL holds no user info (${parts.userinfo}@): audit fetches the page as a customer's ` +
      "browser does, without credentials; write the URL without it"
    );
  if (!/^([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/i.test(parts.host))
    return `the host of a payment page URL is letters, digits, '-' and '.' (an IDN in punycode): ${parts.host}`;
  if (parts.port !== undefined && !/^\d{1,5}$/.test(parts.port))
    return `the port of a payment page URL is a number: ${JSON.stringify(parts.port)}`;
  try {
    new URL(url);
  } catch {
    return "not a URL a browser would request: write the page's address as the browser's address bar shows it";
  }
  return undefined;
}

/** An HTTP field name's characters (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function headerNameProblem(name: string): string | undefined {
  if (!TOKEN.test(name))
    return (
      "not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~), e.g. content-security-policy: " +
      "write the name without ':' or spaces"
    );
  if (isSessionHeader(name))
    return (
      `${name.toLowerCase()} can carry a session or a credential: zoneform never reads it from a page, so it ` +
      "cannot be pinned; remove the pin (pin the security headers: content-security-policy, x-frame-options…)"
    );
  if (name !== name.toLowerCase())
    return `header names are pinned in lower case (HTTP compares them so): write ${name.toLowerCase()}`;
  return undefined;
}

export function headerValueProblem(value: string): string | undefined {
  if (/^[ \t]|[ \t]$/.test(value))
    return (
      "a pinned value never starts or ends with a space or tab: the HTTP layer trims them from what " +
      `the page sends, so it would never match; write ${JSON.stringify(value.replace(/^[ \t]+|[ \t]+$/g, ""))}`
    );
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))
    return "a pinned value holds no control characters: no page can send one in a header";
  if (/[^\u0000-\u00ff]/.test(value))
    return (
      "a pinned value holds only characters up to U+00FF: a header is bytes, each read as one " +
      "character (as the fetch API reads it), so this value would never match"
    );
  return undefined;
}
