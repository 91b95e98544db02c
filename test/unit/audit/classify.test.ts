import { describe, expect, it } from "vitest";
import { classify, classifyConnection, classifyCookie, classifyScript, compareFindings, scoreOf } from "../../../src/audit/classify.js";

const script = (over: Record<string, unknown> = {}) => ({
  id: "s1",
  url: "https://cdn.example.com/app.js",
  host: "example.com",
  status: "active",
  js_integrity_score: 80,
  domain_reported_malicious: false,
  url_reported_malicious: false,
  ...over,
});

describe("classifying scripts", () => {
  it("flags a js_integrity_score below 50 as malicious, and not 50 itself", () => {
    expect(classifyScript(script({ js_integrity_score: 49 }))).toMatchObject({ severity: "high", reasons: ["js_integrity_score 49 < 50"], js_integrity_score: 49 });
    expect(classifyScript(script({ js_integrity_score: 50 }))).toBeUndefined();
  });

  it("treats a null or absent score as unknown, not malicious", () => {
    expect(classifyScript(script({ js_integrity_score: null }))).toBeUndefined();
    const { js_integrity_score: _s, ...noScore } = script();
    expect(classifyScript(noScore)).toBeUndefined();
    expect(scoreOf(null)).toBeNull();
    expect(scoreOf("12")).toBeNull();
  });

  it("flags a script reported malicious by domain or URL even without a score, keeping the two category lists apart", () => {
    const f = classifyScript(
      script({
        js_integrity_score: null,
        domain_reported_malicious: true,
        malicious_domain_categories: ["Malware"],
        url_reported_malicious: true,
        malicious_url_categories: ["Magecart", "Cryptomining"],
      }),
    )!;
    expect(f.malicious_domain_categories).toEqual(["Malware"]);
    expect(f.malicious_url_categories).toEqual(["Magecart", "Cryptomining"]);
    expect(f.reasons).toEqual(["domain reported malicious (Malware)", "URL reported malicious (Magecart, Cryptomining)"]);
    expect(f.js_integrity_score).toBeNull();
  });

  it("ignores categories when the matching flag is not set", () => {
    expect(classifyScript(script({ malicious_domain_categories: ["Malware"] }))).toBeUndefined();
  });
});

describe("classifying connections and cookies", () => {
  it("flags a connection only when reported malicious", () => {
    expect(classifyConnection({ id: "c", url: "https://x.example/c", host: "example.com" })).toBeUndefined();
    expect(classifyConnection({ id: "c", url: "https://x.example/c", host: "example.com", url_reported_malicious: true })).toMatchObject({
      kind: "connection",
      severity: "high",
      reasons: ["URL reported malicious"],
    });
  });

  it("rates a cookie without Secure medium, one only without HttpOnly or with SameSite=None low, a safe one not at all", () => {
    const cookie = (o: Record<string, unknown>) => ({ id: "k", name: "sid", host: "example.com", secure_attribute: true, http_only_attribute: true, same_site_attribute: "strict", ...o });
    expect(classifyCookie(cookie({}))).toBeUndefined();
    expect(classifyCookie(cookie({ secure_attribute: false }))).toMatchObject({ severity: "medium", reasons: ["no Secure"] });
    expect(classifyCookie(cookie({ http_only_attribute: false }))).toMatchObject({ severity: "low", reasons: ["no HttpOnly"] });
    expect(classifyCookie(cookie({ same_site_attribute: "None" }))).toMatchObject({ severity: "low", reasons: ["SameSite=None"] });
    expect(classify("cookie", cookie({ secure_attribute: false, http_only_attribute: false, same_site_attribute: "none" }))!.reasons).toHaveLength(3);
  });
});

describe("worst first", () => {
  it("orders by severity, then lower score and more reports first, then by URL", () => {
    const a = classifyScript(script({ id: "a", js_integrity_score: 40 }))!;
    const b = classifyScript(script({ id: "b", js_integrity_score: 10 }))!;
    const c = classifyScript(script({ id: "c", js_integrity_score: 45, domain_reported_malicious: true }))!;
    const cookie = classifyCookie({ id: "k", name: "x", secure_attribute: false })!;
    expect([a, cookie, b, c].sort(compareFindings).map((f) => f.id)).toEqual(["c", "b", "a", "k"]);
  });
});
