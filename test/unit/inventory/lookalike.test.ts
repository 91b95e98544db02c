// The look-alike host verdict (src/inventory/lookalike.ts) on a hostile corpus: the suffix trick, user
// info, invisible characters, IDN homographs, edit distance; and what must never be a look-alike (an
// authorized host itself, its subdomains, a country variant, an unrelated host).
import { describe, expect, it } from "vitest";
import { hostReferences, LookalikeJudge, lookalikeOf, referenceHost } from "../../../src/inventory/lookalike.js";
import { registrableDomain, skeleton, WELL_KNOWN_HOSTS } from "../../../src/inventory/host-names.js";

const refs = hostReferences({
  authorized: ["https://js.stripe.com/v3/*", "https://www.pay.example/assets/checkout.js"],
  pages: ["pay.example/checkout*", "*/pay/card"],
});

describe("registrable domains", () => {
  it("takes the last two labels, three under a country second level or a shared-hosting suffix", () => {
    expect(registrableDomain("js.stripe.com")).toBe("stripe.com");
    expect(registrableDomain("stripe.com")).toBe("stripe.com");
    expect(registrableDomain("www.shop.co.uk")).toBe("shop.co.uk");
    expect(registrableDomain("shop.github.io")).toBe("shop.github.io");
    expect(registrableDomain("a.b.s3.amazonaws.com")).toBe("b.s3.amazonaws.com");
  });

  it("folds confusable letters and marks to what a reader takes them for", () => {
    expect(skeleton("js.strіpe.com")).toBe("js.stripe.com"); // Cyrillic і
    expect(skeleton("pаypal.com")).toBe("paypal.com"); // Cyrillic а
    expect(skeleton("strípe.com")).toBe("stripe.com");
    expect(skeleton("ｓｔｒｉｐｅ.com")).toBe("stripe.com");
  });
});

describe("look-alike hosts", () => {
  it("the suffix trick: a trusted host carried in a longer name", () => {
    const v = lookalikeOf("https://js.stripe.com.evil.example/skimmer.js", refs)!;
    expect(v.signals).toEqual(["embedded"]);
    expect(v.looks_like).toBe("js.stripe.com");
    expect(v.looks_like_kind).toBe("authorized");
    expect(v.reasons[0]).toBe(
      "js.stripe.com.evil.example carries stripe.com in a longer name, but is under evil.example",
    );
    expect(lookalikeOf("https://stripe-com.evil.example/x.js", refs)?.signals).toEqual(["embedded"]);
    expect(lookalikeOf("https://pay.example.cdn-host.net/x.js", refs)).toMatchObject({
      looks_like: "www.pay.example",
      looks_like_kind: "authorized",
    });
    expect(lookalikeOf("https://www.pay-example.com/x.js", refs)?.signals).toEqual(["embedded"]);
  });

  it("user info is always a finding, whatever the host", () => {
    const v = lookalikeOf("https://js.stripe.com@evil.example/skimmer.js", refs)!;
    expect(v.signals).toEqual(["userinfo"]);
    expect(v.looks_like).toBe("js.stripe.com");
    expect(v.reasons[0]).toContain("it is loaded from evil.example");
    expect(lookalikeOf("https://user:pass@js.stripe.com/v3/", refs)?.signals).toEqual(["userinfo"]);
    expect(lookalikeOf("https://me@unrelated.example/x.js", refs)?.signals).toEqual(["userinfo"]);
  });

  it("invisible characters in the host are a finding, even when it reads as a trusted host", () => {
    for (const ch of ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u{e0041}"]) {
      const v = lookalikeOf(`https://js.stri${ch}pe.com/v3/`, refs);
      expect(v?.signals, JSON.stringify(ch)).toEqual(["invisible"]);
      expect(v?.looks_like).toBe("js.stripe.com");
    }
    expect(lookalikeOf("https://js.stri\u200bpe.com/v3/", refs)!.reasons[0]).toBe(
      "invisible character U+200B in the host",
    );
  });

  it("IDN homographs: mixed scripts, punycode", () => {
    const cyrillic = lookalikeOf("https://js.strіpe.com/v3/", refs)!;
    expect(cyrillic.signals).toEqual(["idn", "mixed-script", "homoglyph"]);
    expect(cyrillic.looks_like).toBe("js.stripe.com");
    expect(cyrillic.reasons).toContain("the label 'strіpe' mixes Latin and Cyrillic letters");
    const puny = lookalikeOf("https://js.xn--strpe-p2e.com/v3/", refs)!;
    expect(puny.signals).toEqual(["idn", "mixed-script", "homoglyph"]);
    expect(puny.reasons[0]).toBe("punycode label xn--strpe-p2e (shown as js.strіpe.com)");
    // A punycode host that imitates nothing is still an IDN on a payment page.
    expect(lookalikeOf("https://xn--mnchen-3ya.example/x.js", refs)?.signals).toEqual(["idn"]);
  });

  it("edit distance 1-2 from a trusted host or its registrable domain", () => {
    expect(lookalikeOf("https://js.strlpe.com/v3/", refs)).toMatchObject({
      looks_like: "js.stripe.com",
      signals: ["edit-distance"],
      reasons: ["js.strlpe.com is 1 character away from js.stripe.com"],
    });
    expect(lookalikeOf("https://cdn.strpie.com/x.js", refs)?.reasons).toEqual([
      "strpie.com is 2 characters away from stripe.com",
    ]);
    expect(lookalikeOf("https://cdn.paypa1.com/x.js", refs)?.looks_like).toBe("www.paypal.com");
    // Three edits is another name.
    expect(lookalikeOf("https://js.strxxxe.com/", refs)).toBeUndefined();
  });

  it("never flags a trusted host itself, its subdomains, a country variant or an unrelated host", () => {
    for (const url of [
      "https://js.stripe.com/v3/",
      "https://JS.Stripe.com/v3/",
      "https://js.stripe.com./v3/",
      "https://m.stripe.com/x.js",
      "https://api.stripe.com/v1/",
      "https://www.pay.example/assets/checkout.js",
      "https://cdn.pay.example/x.js",
      "https://www.paypal.com.au/sdk.js",
      "https://static.hotjar.com/c/hotjar-1.js",
      "https://cdn.segment.com/analytics.js/v1/x",
      "https://evil.example/skimmer.js",
      "https://cdn.skimmer.example/s.js",
      "data:text/javascript,1",
      "https://203.0.113.7/x.js",
      "https://[2001:db8::1]/x.js",
    ])
      expect(lookalikeOf(url, refs), url).toBeUndefined();
  });

  it("an IDN host authorized as itself is trusted", () => {
    const own = hostReferences({ authorized: ["https://xn--mnchen-3ya.example/*"] });
    expect(lookalikeOf("https://xn--mnchen-3ya.example/a.js", own)).toBeUndefined();
    expect(lookalikeOf("https://münchen.example/a.js", own)).toBeUndefined();
  });

  it("the well-known list holds no two hosts one would take for each other", () => {
    const wk = hostReferences({ wellKnown: WELL_KNOWN_HOSTS });
    for (const h of WELL_KNOWN_HOSTS) expect(lookalikeOf(`https://${h}/`, wk), h).toBeUndefined();
  });

  it("reads a reference host from a url, a page pattern or a bare host", () => {
    expect(referenceHost("https://JS.Stripe.com/v3/*")).toBe("js.stripe.com");
    expect(referenceHost("*.pay.example/checkout*")).toBe("pay.example");
    expect(referenceHost("pay.example/checkout*")).toBe("pay.example");
    expect(referenceHost("münchen.example")).toBe("xn--mnchen-3ya.example");
    expect(referenceHost("*/pay/card")).toBeUndefined();
    expect(referenceHost("localhost")).toBeUndefined();
  });

  it("the judge adds the page's own host and remembers verdicts by authority", () => {
    const judge = new LookalikeJudge(hostReferences());
    expect(judge.judge("https://examp1e.com/x.js", "example.com")?.looks_like).toBe("example.com");
    expect(judge.judge("https://examp1e.com/y.js", "example.com")?.looks_like_kind).toBe("page");
    expect(judge.judge("https://examp1e.com/x.js")).toBeUndefined();
    expect(judge.judge("https://www.example.com/x.js", "example.com")).toBeUndefined();
  });
});
