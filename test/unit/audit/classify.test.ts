import { describe, expect, it } from "vitest";
import {
  classify,
  classifyConnection,
  classifyCookie,
  classifyScript,
  compareFindings,
  scoreOf,
} from "../../../src/inventory/classify.js";

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
  // real-answers.md "js_integrity_score threshold": below 10 (cloudflare-docs malicious-script-detection).
  it("flags a js_integrity_score below 10 as malicious, and not 10 itself", () => {
    expect(classifyScript(script({ js_integrity_score: 9 }))).toMatchObject({
      severity: "high",
      reasons: ["js_integrity_score 9 < 10"],
      verdict_by: ["js_integrity_score"],
      js_integrity_score: 9,
    });
    expect(classifyScript(script({ js_integrity_score: 10 }))).toBeUndefined();
    expect(classifyScript(script({ js_integrity_score: 30 }))).toBeUndefined();
  });

  // Changelog 2024-09-18: magecart, malware and cryptomining scores (1–99, low = likely malicious).
  it("flags a magecart, malware or cryptomining score below 10, naming the score that made the verdict", () => {
    for (const [name, value] of [
      ["magecart_score", 3],
      ["malware_score", 4],
      ["cryptomining_score", 2],
    ] as const) {
      const f = classifyScript(script({ [name]: value }))!;
      expect(f, name).toMatchObject({
        severity: "high",
        reasons: [`${name} ${value} < 10`],
        verdict_by: [name],
        [name]: value,
        js_integrity_score: 80,
      });
      expect(classifyScript(script({ [name]: 10 })), name).toBeUndefined();
    }
    const all = classifyScript(
      script({
        js_integrity_score: 5,
        magecart_score: 3,
        malware_score: 60,
        cryptomining_score: 2,
        url_reported_malicious: true,
      }),
    )!;
    expect(all.verdict_by).toEqual([
      "js_integrity_score",
      "magecart_score",
      "cryptomining_score",
      "url_reported_malicious",
    ]);
    expect(all.reasons).toEqual([
      "js_integrity_score 5 < 10",
      "magecart_score 3 < 10",
      "cryptomining_score 2 < 10",
      "URL reported malicious",
    ]);
  });

  it("ignores the deprecated dataflow_score and obfuscation_score, and scores that are not numbers", () => {
    expect(classifyScript(script({ dataflow_score: 1, obfuscation_score: 1 }))).toBeUndefined();
    expect(classifyScript(script({ magecart_score: "3", malware_score: null }))).toBeUndefined();
  });

  it("treats a null or absent score as unknown, not malicious", () => {
    expect(classifyScript(script({ js_integrity_score: null }))).toBeUndefined();
    const { js_integrity_score: _s, ...noScore } = script();
    expect(classifyScript(noScore)).toBeUndefined();
    expect(scoreOf(null)).toBeNull();
    expect(scoreOf("12")).toBeNull();
  });

  it(
    "flags a script reported malicious by domain or URL even without a score, keeping the two category " +
      "lists apart",
    () => {
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
      expect(f.reasons).toEqual([
        "domain reported malicious (Malware)",
        "URL reported malicious (Magecart, Cryptomining)",
      ]);
      expect(f.js_integrity_score).toBeNull();
    },
  );

  it("ignores categories when the matching flag is not set", () => {
    expect(classifyScript(script({ malicious_domain_categories: ["Malware"] }))).toBeUndefined();
  });
});

describe("classifying connections and cookies", () => {
  it("flags a connection only when reported malicious", () => {
    expect(classifyConnection({ id: "c", url: "https://x.example/c", host: "example.com" })).toBeUndefined();
    expect(
      classifyConnection({ id: "c", url: "https://x.example/c", host: "example.com", url_reported_malicious: true }),
    ).toMatchObject({
      kind: "connection",
      severity: "high",
      reasons: ["URL reported malicious"],
    });
  });

  it(
    "rates a cookie without Secure medium, one only without HttpOnly or with SameSite=None low, a safe one " +
      "not at all",
    () => {
      const cookie = (o: Record<string, unknown>) => ({
        id: "k",
        name: "sid",
        host: "example.com",
        secure_attribute: true,
        http_only_attribute: true,
        same_site_attribute: "strict",
        ...o,
      });
      expect(classifyCookie(cookie({}))).toBeUndefined();
      expect(classifyCookie(cookie({ secure_attribute: false }))).toMatchObject({
        severity: "medium",
        reasons: ["no Secure"],
      });
      expect(classifyCookie(cookie({ http_only_attribute: false }))).toMatchObject({
        severity: "low",
        reasons: ["no HttpOnly"],
      });
      expect(classifyCookie(cookie({ same_site_attribute: "None" }))).toMatchObject({
        severity: "low",
        reasons: ["SameSite=None"],
      });
      expect(
        classify(
          "cookie",
          cookie({ secure_attribute: false, http_only_attribute: false, same_site_attribute: "none" }),
        )!.reasons,
      ).toHaveLength(3);
    },
  );
});

describe("worst first", () => {
  it("orders by severity, then lower score and more reports first, then by URL", () => {
    const a = classifyScript(script({ id: "a", js_integrity_score: 8 }))!;
    const b = classifyScript(script({ id: "b", js_integrity_score: 70, malware_score: 2 }))!;
    const c = classifyScript(script({ id: "c", js_integrity_score: 9, domain_reported_malicious: true }))!;
    const cookie = classifyCookie({ id: "k", name: "x", secure_attribute: false })!;
    expect([a, cookie, b, c].sort(compareFindings).map((f) => f.id)).toEqual(["c", "b", "a", "k"]);
  });
});
