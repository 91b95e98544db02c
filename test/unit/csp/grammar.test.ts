// The CSP grammar zoneform builds sources with and reads policy values by
// (src/sections/page_shield/csp-grammar.ts), and `validate` refusing a policy value whose `;` or `,`
// would add a directive or a second policy, at the value's file:line.
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/index.js";
import { ConfigError } from "../../../src/errors.js";
import { cspPath, cspSource } from "../../../src/inventory/csp.js";
import {
  hostPartProblem,
  hostSource,
  policyValueProblems,
  sourceExpressionProblem,
} from "../../../src/sections/page_shield/csp-grammar.js";

describe("host-sources", () => {
  it("allows letters, digits, '-' and '.', with an optional leading *.", () => {
    expect(hostPartProblem("js.stripe.com")).toBeUndefined();
    expect(hostPartProblem("*.stripe.com")).toBeUndefined();
    expect(hostPartProblem("xn--strpe-p2e.com")).toBeUndefined();
    expect(hostPartProblem("a.com;report-uri")).toBe("a ';' would end the directive and start another one");
    expect(hostPartProblem("a.com,script-src")).toBe("a ',' would start a second policy");
    expect(hostPartProblem("x.com'unsafe-inline'")).toMatch(/^a quote/);
    expect(hostPartProblem("a{b}.com")).toBe("'{' is not a host character (letters, digits, '-' and '.')");
    expect(hostPartProblem("strípe.com")).toMatch(/outside ASCII \(U\+00ED; a host is written in punycode/);
    expect(hostPartProblem("a..com")).toMatch(/not a host name/);
    expect(hostPartProblem("a.*.com")).toBeDefined();
  });

  it("builds scheme://host[:port], host lower-cased, or says why not", () => {
    expect(hostSource({ scheme: "https", host: "JS.Stripe.COM" })).toEqual({ source: "https://js.stripe.com" });
    expect(hostSource({ scheme: "wss", host: "a.example", port: "8443" })).toEqual({
      source: "wss://a.example:8443",
    });
    expect(hostSource({ scheme: "https", host: "a.com;report-uri" }).problem).toBe(
      "its host: a ';' would end the directive and start another one",
    );
    expect(hostSource({ scheme: "https", host: "a.example", port: "80;x" }).problem).toMatch(/port/);
  });

  it("reads source expressions: keywords, nonces, hashes, schemes, hosts with paths", () => {
    for (const ok of [
      "'self'",
      "'NONE'",
      "'strict-dynamic'",
      "'nonce-abc123=='",
      "'sha256-AbC+/x='",
      "https:",
      "data:",
      "*",
      "https://*.stripe.com",
      "js.stripe.com",
      "https://js.stripe.com:443/v3/",
      "https://a.example:*/p%2Cq/",
    ])
      expect(sourceExpressionProblem(ok), ok).toBeUndefined();
    expect(sourceExpressionProblem("'unsafe-everything'")).toBe("not a CSP keyword, nonce or hash");
    expect(sourceExpressionProblem("https://a.example/p'q")).toMatch(/^its path: a quote/);
    expect(sourceExpressionProblem("https://a.example/%zz")).toBe("its path: a '%' not followed by two hex digits");
  });
});

describe("policy values", () => {
  it("accepts the policies zoneform and its examples write", () => {
    for (const v of [
      "script-src 'self' https://js.stripe.com",
      "script-src 'self' https://js.stripe.com; connect-src 'self' https://api.stripe.com",
      "script-src 'none'",
      "default-src 'self'; upgrade-insecure-requests; report-uri /csp",
      "script-src https://example.com/pay/app.js https://js.stripe.com/v3/",
    ])
      expect(policyValueProblems(v), v).toEqual([]);
  });

  it("a ',' anywhere would start a second policy", () => {
    const p = policyValueProblems("script-src 'self' https://js.stripe.com,script-src/x 'none'");
    expect(p).toContainEqual({
      severity: "error",
      message:
        "a ',' (in 'https://js.stripe.com,script-src/x') would start a second policy: a policy value holds " +
        "one policy; percent-encode a ',' of a path as %2C, or write a second policy entry",
    });
  });

  it("a ';' inside a token, or before something that is not a directive, is an error", () => {
    const injected = policyValueProblems("script-src https://a.example;report-uri https://attacker.example");
    expect(injected.map((p) => p.severity)).toEqual(["error"]);
    expect(injected[0]!.message).toContain("'https://a.example;report-uri' has one inside");
    const host = policyValueProblems("script-src 'self'; evil.example https://x.example");
    expect(host[0]!.message).toBe(
      "a ';' may only separate directives: 'evil.example' after a ';' is not a CSP directive (a ';' inside " +
        "a source? percent-encode it as %3B)",
    );
  });

  it("control characters are errors; unknown sources and repeated directives warnings", () => {
    expect(policyValueProblems("script-src 'self'\r\nSet-Cookie: x")[0]).toMatchObject({ severity: "error" });
    expect(policyValueProblems("script-src 'self' https://a{b}.example")).toEqual([
      {
        severity: "warning",
        message:
          "'https://a{b}.example' in script-src is not a valid source (its host: '{' is not a host character " +
          "(letters, digits, '-' and '.')): a browser ignores it",
      },
    ]);
    expect(policyValueProblems("script-src 'self'; script-src *")[0]!.message).toBe(
      "script-src is given twice: a browser uses the first and ignores this one",
    );
  });

  it("showText: false names no part of the value and warns about nothing", () => {
    const p = policyValueProblems("script-src https://s3cr3t;x,y", { showText: false });
    expect(p.every((x) => x.severity === "error")).toBe(true);
    expect(p.map((x) => x.message).join("\n")).not.toContain("s3cr3t");
  });
});

describe("csp suggest --from-inventory sources", () => {
  it("percent-encodes what the path-part does not allow, and makes no source of a host it does not", () => {
    expect(cspPath("/a;b,c'd/${env:X}/é%41%g")).toBe("/a%3Bb%2Cc%27d/$%7Benv:X%7D/%C3%A9%41%25g");
    expect(cspSource("https://a.com;report-uri/x.js")).toEqual({
      note: "https://a.com;report-uri/x.js (left out: its host: a ';' would end the directive and start another one)",
    });
    expect(cspSource("https://user@js.stripe.com/v3/").source).toBeUndefined();
    expect(cspSource("https://JS.stripe.com/v3/x.js?v=1")).toEqual({
      source: "https://js.stripe.com/v3/x.js",
      note: "https://JS.stripe.com/v3/x.js?v=1 (query dropped: CSP matches the path only)",
    });
  });
});

describe("validate", () => {
  const Z = "0123456789abcdef0123456789abcdef";
  const file = (policies: string, inventory = "") =>
    `version: 1\nzones:\n  - zone_id: ${Z}\n    page_shield:\n${policies}${inventory}`;
  const refused = (text: string): ConfigError => {
    try {
      parseConfigText(text, "z.yaml", {});
    } catch (e) {
      return e as ConfigError;
    }
    throw new Error("expected a ConfigError");
  };

  it("refuses a policy value with a ';' or ',' in a source, at the value's line", () => {
    const err = refused(
      file(
        [
          "      policies:",
          "        - description: Checkout",
          "          action: log",
          "          expression: 'true'",
          "          value: script-src 'self' https://a.example;report-uri https://attacker.example",
          "        - description: Second",
          "          action: allow",
          "          expression: 'true'",
          "          value: script-src https://js.stripe.com,script-src/x 'none'",
          "",
        ].join("\n"),
      ),
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/z\.yaml:9:\d+ .*\/zones\/0\/page_shield\/policies\/0\/value .*';' may only/);
    expect(err.message).toMatch(/z\.yaml:13:\d+ .*\/zones\/0\/page_shield\/policies\/1\/value .*second policy/);
  });

  it("refuses a value whose ${env:…} value injects a directive, without showing the value", () => {
    let err: ConfigError | undefined;
    try {
      parseConfigText(
        file(
          [
            "      policies:",
            "        - { description: C, action: log, expression: 'true', value: 'script-src https://${env:CDN}' }",
            "",
          ].join("\n"),
        ),
        "z.yaml",
        { CDN: "cdn.example;report-uri https://leak.example" },
      );
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.message).toContain("a ';' may only separate directives");
    expect(err!.message).not.toContain("leak.example");
  });

  it("refuses a url pattern whose * extends the host, user info, invisible characters, bad host characters", () => {
    const err = refused(
      file(
        "",
        [
          "      script_inventory:",
          "        pages: [example.com/checkout*]",
          "        authorized:",
          "          - { url: 'https://js.stripe.com*', justification: Stripe }",
          "          - { url: 'https://user@js.stripe.com/v3/', justification: Stripe }",
          '          - { url: "https://js.stri\\u200bpe.com/v3/", justification: Stripe }',
          "          - { url: 'https://a.com;report-uri/x.js', justification: X }",
          "          - { url: 'https://js.stripe.com:*', justification: Stripe }",
          "",
        ].join("\n"),
      ),
    );
    const m = err.message;
    expect(m).toMatch(
      /z\.yaml:8:\d+ .*authorized\/0\/url .*the '\*' of https:\/\/js\.stripe\.com\* would extend the host: it also covers https:\/\/js\.stripe\.com\.evil\.example\/…, another host; end the host with '\/': write https:\/\/js\.stripe\.com\/\* \(every script of that host\), or an exact URL/,
    );
    expect(m).toMatch(/z\.yaml:9:\d+ .*authorized\/1\/url .*no user info \(user@\)/);
    expect(m).toMatch(/z\.yaml:10:\d+ .*authorized\/2\/url .*no invisible characters \(U\+200B\)/);
    expect(m).toMatch(/z\.yaml:11:\d+ .*authorized\/3\/url .*a ';' would end the directive/);
    expect(m).toMatch(/z\.yaml:12:\d+ .*authorized\/4\/url .*write https:\/\/js\.stripe\.com\/\*/);
  });

  it("accepts boundary patterns and exact hosts", () => {
    const { warnings } = parseConfigText(
      file(
        "",
        [
          "      script_inventory:",
          "        pages: [example.com/checkout*]",
          "        authorized:",
          "          - { url: 'https://js.stripe.com/*', justification: Stripe, owner: payments }",
          "          - { url: 'https://cdn.example', justification: exact host, owner: web }",
          "          - { url: 'https://cdn.example:8443/lib/*', justification: lib, owner: web }",
          "",
        ].join("\n"),
      ),
      "z.yaml",
      {},
    );
    expect(warnings).toEqual([]);
  });
});
