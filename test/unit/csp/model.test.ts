// The one CSP model (src/sections/page_shield/csp-model.ts, csp-sources.ts, csp-grammar.ts): a page's
// CSP judged by its effect in a browser (CSP Level 3) against a required one (a Page Shield policy's
// value, a pinned content-security-policy). Each weaker form is found weaker, each equal or stricter
// one is not; where the model cannot be exact it reports. Pure.
import { describe, expect, it } from "vitest";
import { parseHeader, parsePolicy, serializePolicy } from "../../../src/sections/page_shield/csp-grammar.js";
import { cspAtLeastAsStrict } from "../../../src/sections/page_shield/csp-model.js";
import { CspSuggester } from "../../../src/csp/suggest.js";

const PAGE = "https://shop.example/checkout";
const POLICY = "script-src 'self' https://js.stripe.com";

function meets(page: string | undefined, required = POLICY, url = PAGE): boolean {
  return cspAtLeastAsStrict(page, required, url).meets;
}

function reasons(page: string | undefined, required = POLICY, url = PAGE): string[] {
  return cspAtLeastAsStrict(page, required, url).reasons;
}

describe("reading a policy as a browser does", () => {
  it("keeps the first of duplicate directives, lower-cases names, marks the later ones", () => {
    const p = parsePolicy("SCRIPT-SRC * ; script-src 'self';;img-src  data:");
    expect([...p.directives]).toEqual([
      ["script-src", ["*"]],
      ["img-src", ["data:"]],
    ]);
    expect(p.list.map((d) => [d.name, d.duplicate])).toEqual([
      ["script-src", false],
      ["script-src", true],
      ["img-src", false],
    ]);
  });

  it("a header's policies are split at ',', and an empty one enforces nothing", () => {
    expect(parseHeader("script-src 'self', , img-src 'none'").map((p) => [...p.directives.keys()])).toEqual([
      ["script-src"],
      ["img-src"],
    ]);
  });

  it("serializes directives as CSP does, an empty list as 'none'", () => {
    expect(serializePolicy([["script-src", []]])).toBe("script-src 'none'");
    expect(
      serializePolicy([
        ["script-src", ["'self'", "https://a.example"]],
        ["connect-src", ["'self'"]],
      ]),
    ).toBe("script-src 'self' https://a.example; connect-src 'self'");
  });
});

describe("the suggestions write what the model reads", () => {
  it("csp suggest's value reads back as its lists, 'none' for no script; a page sending it applies it", () => {
    const s = new CspSuggester();
    s.add("script", { url: "https://js.stripe.com/v3/", host: "shop.example", js_integrity_score: 90 });
    s.add("connection", { url: "https://api.stripe.com/v1/tokens", host: "shop.example" });
    const r = s.result();
    const p = parsePolicy(r.value);
    expect(p.directives.get("script-src")).toEqual(r.script_src);
    expect(p.directives.get("connect-src")).toEqual(r.connect_src);
    expect(parsePolicy(new CspSuggester().result().value).directives.get("script-src")).toEqual(["'none'"]);
    expect(meets(`${r.value}; report-uri /r`, r.value)).toBe(true);
  });
});

describe("weaker pages are found weaker", () => {
  it.each([
    [
      "duplicates: the first wins",
      "script-src *; script-src 'self' https://js.stripe.com",
      'script-src-elem allows "*"',
    ],
    [
      "script-src-elem takes over for elements",
      `${POLICY}; script-src-elem * 'unsafe-inline'`,
      `script-src-elem allows "*" "'unsafe-inline'"`,
    ],
    [
      "script-src-attr takes over for attributes",
      `${POLICY}; script-src-attr 'unsafe-inline'`,
      `script-src-attr allows "'unsafe-inline'"`,
    ],
    ["child-src comes before script-src for workers", `${POLICY}; child-src *`, 'worker-src allows "*"'],
    ["worker-src takes over for workers", `${POLICY}; worker-src blob:`, 'worker-src allows "blob:"'],
    ["a wider default-src", "default-src *", 'script-src-elem allows "*"'],
    ["eval", `${POLICY} 'unsafe-eval'`, `script-src allows "'unsafe-eval'"`],
    ["a scheme", "script-src https:", 'script-src-elem allows "https:"'],
    [
      "a wider host wildcard",
      "script-src 'self' https://*.stripe.com",
      'script-src-elem allows "https://*.stripe.com"',
    ],
    ["any port", "script-src 'self' https://js.stripe.com:*", 'script-src-elem allows "https://js.stripe.com:*"'],
    ["plain http too", "script-src 'self' http://js.stripe.com", 'script-src-elem allows "http://js.stripe.com"'],
    ["a nonce the policy lacks", `${POLICY} 'nonce-r4nd0m'`, `script-src-elem allows "'nonce-r4nd0m'"`],
    [
      "'strict-dynamic' trusts what a nonced script loads",
      "script-src 'nonce-abc' 'strict-dynamic'",
      `script-src-elem allows "'nonce-abc'" "'strict-dynamic'"`,
    ],
    ["a source the model cannot read", "script-src 'self' https://[::1]", 'script-src-elem allows "https://[::1]"'],
  ])("%s", (_, page, reason) => {
    expect(meets(page)).toBe(false);
    expect(reasons(page)).toContain(reason);
  });

  it("a page with no CSP (or only Report-Only, which the caller does not pass) applies nothing", () => {
    expect(reasons(undefined)).toEqual([
      "script-src-elem is not restricted",
      "script-src-attr is not restricted",
      "script-src is not restricted",
      "worker-src is not restricted",
    ]);
    expect(meets("")).toBe(false);
  });

  it("a path narrows, a wider path does not", () => {
    const required = "script-src https://js.stripe.com/v3/";
    expect(meets("script-src https://js.stripe.com/v3/stripe.js", required)).toBe(true);
    expect(meets("script-src https://js.stripe.com/v3/", required)).toBe(true);
    expect(meets("script-src https://js.stripe.com", required)).toBe(false);
    expect(meets("script-src https://js.stripe.com/", required)).toBe(false);
    expect(meets("script-src https://js.stripe.com/v3", "script-src https://js.stripe.com/v3/x.js")).toBe(false);
  });

  it("directives without a source list: sandbox, upgrade-insecure-requests, trusted types, and any other as written", () => {
    expect(meets("sandbox", "sandbox allow-scripts")).toBe(true);
    expect(reasons("sandbox allow-scripts allow-forms", "sandbox allow-scripts")).toEqual([
      'sandbox allows more than "allow-scripts"',
    ]);
    expect(reasons("script-src 'self'", "upgrade-insecure-requests")).toEqual([
      "upgrade-insecure-requests is not sent",
    ]);
    expect(
      meets(
        "require-trusted-types-for 'script'; trusted-types a",
        "require-trusted-types-for 'script'; trusted-types a b",
      ),
    ).toBe(true);
    expect(meets("trusted-types *", "trusted-types a")).toBe(false);
    expect(meets("webrtc 'allow'", "webrtc 'block'")).toBe(false);
    expect(meets("webrtc 'block'", "webrtc 'block'; report-uri /r")).toBe(true);
  });
});

describe("equal or stricter pages are not", () => {
  it.each([
    ["the same, reporting added", `${POLICY}; report-uri https://csp.example/r`],
    ["whitespace and case aside", "SCRIPT-SRC   'SELF'  https://JS.Stripe.com"],
    ["a narrower list", "script-src 'self'"],
    ["nothing", "script-src 'none'"],
    ["default-src covering script-src", "default-src 'self'"],
    ["default-src 'none'", "default-src 'none'"],
    ["a narrower script-src-elem over the same script-src", `${POLICY}; script-src-elem 'self'`],
    ["several headers: every policy applies", "script-src *, script-src 'self'"],
    ["several policies, each holding a part", "default-src *, script-src 'self' https://js.stripe.com"],
    ["a host under a wildcard of the policy", "script-src https://js.stripe.com", "script-src https://*.stripe.com"],
    ["'self' as its own origin", "script-src https://shop.example/assets/", "script-src 'self'"],
    ["the own origin as 'self'", "script-src 'self'", "script-src https://shop.example"],
    ["a source without a scheme, on https", "script-src js.stripe.com"],
    ["the default port written", "script-src https://js.stripe.com:443"],
    [
      "'unsafe-inline' ignored beside a nonce",
      "script-src 'self' 'unsafe-inline' 'nonce-abc'",
      "script-src 'self' 'nonce-abc'",
    ],
    [
      "the same 'strict-dynamic' policy",
      "script-src 'nonce-abc' 'strict-dynamic' https:",
      "script-src 'nonce-abc' 'strict-dynamic'",
    ],
  ])("%s", (_, page, required = POLICY) => {
    expect(cspAtLeastAsStrict(page, required, PAGE)).toEqual({ meets: true, reasons: [] });
  });

  it("a required CSP of several policies wants the page at least as strict as each", () => {
    const required = "script-src 'self', img-src 'self'";
    expect(meets("script-src 'self'; img-src 'self'", required)).toBe(true);
    expect(reasons("script-src 'self'", required)).toEqual(["img-src is not restricted"]);
  });

  it("'self' and a source without a scheme are read against the page's URL", () => {
    // On a plain-http page, js.stripe.com also allows http://js.stripe.com.
    expect(meets("script-src js.stripe.com", POLICY, "http://127.0.0.1:8080/checkout")).toBe(false);
    // 'self' on http also allows https (as http://127.0.0.1:8080 does), which https alone does not cover.
    expect(meets("script-src 'self'", "script-src http://127.0.0.1:8080", "http://127.0.0.1:8080/checkout")).toBe(true);
    expect(meets("script-src 'self'", "script-src https://127.0.0.1:8080", "http://127.0.0.1:8080/checkout")).toBe(
      false,
    );
    expect(meets("script-src http://127.0.0.1:8080", "script-src 'self'", "http://127.0.0.1:8080/checkout")).toBe(true);
    expect(meets("script-src https://shop.example", "script-src 'self'", "https://other.example/")).toBe(false);
  });

  it("leans to reporting where it cannot be exact: a hash instead of 'unsafe-inline'", () => {
    // A hash also allows an external script with that integrity, which 'unsafe-inline' does not.
    expect(meets("script-src 'self' 'sha256-abc='", "script-src 'self' 'unsafe-inline'")).toBe(false);
    // For styles a hash allows inline styles only, which 'unsafe-inline' allows.
    expect(meets("style-src 'self' 'sha256-abc='", "style-src 'self' 'unsafe-inline'")).toBe(true);
  });
});
