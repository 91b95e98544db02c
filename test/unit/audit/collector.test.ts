import { describe, expect, it } from "vitest";
import { classifyCookie, classifyScript } from "../../../src/inventory/classify.js";
import { AuditCollector, TopN } from "../../../src/audit/collector.js";

describe("TopN", () => {
  it("keeps the smallest `limit` items in order and counts what it dropped", () => {
    const top = new TopN<number>(3, (a, b) => a - b);
    for (const n of [5, 1, 9, 3, 7, 2, 8]) top.add(n);
    expect(top.values()).toEqual([1, 2, 3]);
    expect(top.dropped).toBe(4);
  });

  it("keeps nothing with a limit of 0, but still counts", () => {
    const top = new TopN<number>(0, (a, b) => a - b);
    top.add(1);
    expect(top.values()).toEqual([]);
    expect(top.dropped).toBe(1);
  });

  it("holds at most `limit` items whatever the number added", () => {
    const top = new TopN<number>(50, (a, b) => a - b);
    for (let i = 100_000; i > 0; i--) top.add(i);
    expect(top.size).toBe(50);
    expect(top.values()[0]).toBe(1);
    expect(top.dropped).toBe(100_000 - 50);
  });
});

describe("AuditCollector", () => {
  it("counts reads, findings by severity, unscored scripts and each category list on its own", () => {
    const c = new AuditCollector(1);
    c.countRead("script", { unscored: true });
    c.countRead("script");
    c.add(
      classifyScript({
        id: "a",
        url: "https://a.test/x.js",
        js_integrity_score: 20,
        domain_reported_malicious: true,
        malicious_domain_categories: ["Malware"],
      })!,
    );
    c.add(
      classifyScript({
        id: "b",
        url: "https://b.test/x.js",
        js_integrity_score: 10,
        url_reported_malicious: true,
        malicious_url_categories: ["Malware"],
      })!,
    );
    c.add(classifyCookie({ id: "k", name: "sid", secure_attribute: false })!);
    expect(c.summary.script).toEqual({
      read: 2,
      findings: 2,
      by_severity: { high: 2, medium: 0, low: 0 },
      unscored: 1,
      lookalike: 0,
      malicious_domain_categories: { Malware: 1 },
      malicious_url_categories: { Malware: 1 },
    });
    expect(c.summary.cookie.by_severity).toEqual({ high: 0, medium: 1, low: 0 });
    expect(c.worst("script").map((f) => f.id)).toEqual(["b"]);
    expect(c.notShown("script")).toBe(1);
  });
});
