import { describe, expect, it } from "vitest";
import { CspSuggester, collapseWildcards, hostExpression, originOf } from "../../../src/csp/suggest.js";

const item = (url: string, host = "example.com", extra: Record<string, unknown> = {}) => ({
  id: url,
  url,
  host,
  js_integrity_score: 90,
  ...extra,
});

describe("origins", () => {
  it("keeps scheme, host and a non-default port; skips data:, blob: and broken URLs", () => {
    expect(originOf("https://CDN.Example.com/a.js?x=1")).toEqual({
      scheme: "https",
      host: "cdn.example.com",
      port: "",
    });
    expect(originOf("https://cdn.example.com:8443/a.js")).toEqual({
      scheme: "https",
      host: "cdn.example.com",
      port: "8443",
    });
    expect(originOf("data:text/javascript,alert(1)")).toBeUndefined();
    expect(originOf("/relative.js")).toBeUndefined();
  });
});

describe("CspSuggester", () => {
  it("writes 'self' for the page's own host, dedupes and sorts the others", () => {
    const s = new CspSuggester();
    s.add("script", item("https://example.com/app.js"));
    s.add("script", item("https://js.stripe.com/v3/"));
    s.add("script", item("https://cdnjs.cloudflare.com/a.js"));
    s.add("script", item("https://js.stripe.com/v3/other"));
    s.add("connection", item("https://api.stripe.com/v1/tokens"));
    const r = s.result();
    expect(r.script_src).toEqual(["'self'", "https://cdnjs.cloudflare.com", "https://js.stripe.com"]);
    expect(r.connect_src).toEqual(["https://api.stripe.com"]);
    expect(r.value).toBe(
      "script-src 'self' https://cdnjs.cloudflare.com https://js.stripe.com; connect-src https://api.stripe.com",
    );
  });

  it("leaves out and lists every host that served something malicious, even next to benign URLs", () => {
    const s = new CspSuggester();
    s.add("script", item("https://cdn.bad.test/ok.js"));
    s.add("script", item("https://cdn.bad.test/evil.js", "example.com", { js_integrity_score: 7 }));
    s.add(
      "connection",
      item("https://collect.bad.test/c", "example.com", {
        domain_reported_malicious: true,
        malicious_domain_categories: ["Malware"],
      }),
    );
    s.add("script", item("https://unscored.test/a.js", "example.com", { js_integrity_score: null }));
    const r = s.result();
    expect(r.script_src).toEqual(["https://unscored.test"]);
    expect(r.connect_src).toEqual([]);
    expect(r.value).toBe("script-src https://unscored.test");
    expect(r.excluded).toEqual([
      { host: "cdn.bad.test", scripts: 1, connections: 0, reasons: ["js_integrity_score < 10"] },
      { host: "collect.bad.test", scripts: 0, connections: 1, reasons: ["domain reported malicious (Malware)"] },
    ]);
  });

  it("keeps 'self' when a malicious script is served from the page's own host, and warns about it", () => {
    const s = new CspSuggester();
    s.add("script", item("https://example.com/ok.js"));
    s.add("script", item("https://example.com/skimmer.js", "example.com", { js_integrity_score: 5 }));
    const r = s.result();
    expect(r.script_src).toEqual(["'self'"]);
    expect(r.self_hosted_malicious).toEqual({ count: 1, examples: ["https://example.com/skimmer.js"] });
  });

  it("says script-src 'none' when nothing was found", () => {
    expect(new CspSuggester().result().value).toBe("script-src 'none'");
  });
});

describe("wildcards", () => {
  const o = (host: string) => ({ scheme: "https", host, port: "" });
  it("collapses many subdomains of one parent into https://*.parent", () => {
    const many = Array.from({ length: 5 }, (_, i) => o(`o${i}.ingest.sentry.io`));
    expect(collapseWildcards(many, 5, () => false)).toEqual(["https://*.ingest.sentry.io"]);
    expect(collapseWildcards(many.slice(0, 4), 5, () => false)).toHaveLength(4);
  });
  it("never collapses over a malicious host or a bare domain's parent (a TLD)", () => {
    const many = Array.from({ length: 5 }, (_, i) => o(`s${i}.cdn.test`));
    expect(collapseWildcards(many, 5, (parent) => parent === "cdn.test")).toHaveLength(5);
    const tld = Array.from({ length: 5 }, (_, i) => o(`site${i}.com`));
    expect(collapseWildcards(tld, 5, () => false)).toHaveLength(5);
  });
});

describe("hostExpression", () => {
  it("matches one host with eq and several with in", () => {
    expect(hostExpression(["example.com"])).toBe('http.host eq "example.com"');
    expect(hostExpression(["a.example", "b.example"])).toBe('http.host in {"a.example" "b.example"}');
    expect(hostExpression([])).toBe("true");
  });
});
