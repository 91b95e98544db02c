// Host name facts the look-alike verdict reads: registrable domains, confusable letters, scripts.
// Spec: docs/pci-script-inventory.md#look-alike-hosts (which lists WELL_KNOWN_HOSTS too).
import { domainToASCII } from "node:url";

/** Keep in step with the list in docs/pci-script-inventory.md#look-alike-hosts. */
export const WELL_KNOWN_HOSTS: readonly string[] = [
  "js.stripe.com",
  "checkout.stripe.com",
  "m.stripe.network",
  "www.paypal.com",
  "www.paypalobjects.com",
  "js.braintreegateway.com",
  "checkoutshopper-live.adyen.com",
  "pay.google.com",
  "applepay.cdn-apple.com",
  "web.squarecdn.com",
  "js.authorize.net",
  "x.klarnacdn.net",
  "cdn.checkout.com",
  "cdnjs.cloudflare.com",
  "ajax.googleapis.com",
  "www.gstatic.com",
  "www.googletagmanager.com",
  "www.google-analytics.com",
  "code.jquery.com",
  "cdn.jsdelivr.net",
  "unpkg.com",
  "connect.facebook.net",
];

/** Shared-hosting suffixes: `attacker.github.io` must not count as "under" `shop.github.io`. */
const SHARED_SUFFIXES = new Set([
  "github.io",
  "gitlab.io",
  "pages.dev",
  "workers.dev",
  "r2.dev",
  "netlify.app",
  "vercel.app",
  "web.app",
  "firebaseapp.com",
  "appspot.com",
  "herokuapp.com",
  "azurewebsites.net",
  "azureedge.net",
  "cloudfront.net",
  "s3.amazonaws.com",
  "amazonaws.com",
  "blob.core.windows.net",
  "trycloudflare.com",
  "ngrok.io",
  "ngrok-free.app",
  "onrender.com",
  "fly.dev",
  "glitch.me",
  "b-cdn.net",
]);
const COUNTRY_SECOND_LEVELS = new Set(["co", "com", "net", "org", "gov", "edu", "ac", "or", "ne", "go", "ltd"]);

/** The registrable domain of a lower-case ASCII host: the last two labels, or three under a known suffix. */
export function registrableDomain(host: string): string {
  const labels = host.replace(/\.$/, "").split(".");
  if (labels.length <= 2) return labels.join(".");
  const last2 = labels.slice(-2).join(".");
  const last3 = labels.slice(-3).join(".");
  const suffix3 = labels.length >= 4 && SHARED_SUFFIXES.has(last3);
  const suffix2 =
    SHARED_SUFFIXES.has(last2) || (labels.at(-1)!.length === 2 && COUNTRY_SECOND_LEVELS.has(labels.at(-2)!));
  if (suffix3) return labels.slice(-4).join(".");
  return suffix2 ? last3 : last2;
}

export function isAscii(text: string): boolean {
  return /^[\u0020-\u007e]*$/.test(text);
}

export function toAscii(host: string): string {
  return isAscii(host) ? host : domainToASCII(host);
}

/** Letters that read as Latin ones (Cyrillic, Greek and Latin look-alikes), folded to what they imitate. */
const CONFUSABLE: Readonly<Record<string, string>> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  і: "i",
  ї: "i",
  ј: "j",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  һ: "h",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ӏ: "l",
  ɑ: "a",
  α: "a",
  β: "b",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  γ: "y",
  ı: "i",
  ȷ: "j",
  ɡ: "g",
  ǀ: "l",
  ℓ: "l",
};

/** Lower-case ASCII a reader would take the host for: compatibility forms, marks dropped, confusables folded. */
export function skeleton(host: string): string {
  if (isAscii(host)) return host.toLowerCase();
  let out = "";
  for (const ch of host.normalize("NFKC").toLowerCase().normalize("NFD")) {
    if (/\p{M}/u.test(ch)) continue;
    out += CONFUSABLE[ch] ?? ch;
  }
  return out;
}

const SCRIPTS = [
  "Latin",
  "Cyrillic",
  "Greek",
  "Armenian",
  "Georgian",
  "Cherokee",
  "Hebrew",
  "Arabic",
  "Devanagari",
  "Thai",
  "Hangul",
] as const;
const SCRIPT_TESTS = SCRIPTS.map((name) => ({ name, re: new RegExp(`\\p{Script=${name}}`, "u") }));
const JAPANESE_OR_CHINESE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** The writing systems of a label's letters (Han, Hiragana and Katakana count as one). */
export function scriptsOf(label: string): string[] {
  const found = new Set<string>();
  for (const ch of label) {
    if (!/\p{L}/u.test(ch)) continue;
    if (JAPANESE_OR_CHINESE.test(ch)) {
      found.add("Han/Kana");
      continue;
    }
    found.add(SCRIPT_TESTS.find((s) => s.re.test(ch))?.name ?? "other");
  }
  return [...found];
}
