// The malicious verdict's thresholds: js_integrity_score below 10 (Cloudflare's malicious-script page:
// "currently set to 10"; the older 50 was removed, real-answers.md "js_integrity_score threshold"), and
// magecart/malware/cryptomining_score below 10 (no documented number; zoneform's default), each a
// setting taken by `audit` and `csp suggest` (--malicious-below, --threat-below); every report says which.
import { describe, expect, it } from "vitest";
import {
  classify,
  classifyScript,
  MALICIOUS_SCORE_THRESHOLD,
  THREAT_SCORE_THRESHOLD,
} from "../../../src/inventory/classify.js";
import { auditFilters, runAudit } from "../../../src/audit/run.js";
import { parseScoreThreshold } from "../../../src/cli/commands/audit.js";
import { renderSuggestionText, suggestCsp } from "../../../src/cli/commands/csp.js";
import { memoryIO } from "../../../src/cli/io.js";
import { main } from "../../../src/cli/program.js";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { CspSuggester } from "../../../src/csp/suggest.js";
import { UsageError } from "../../../src/errors.js";

const Z = "0123456789abcdef0123456789abcdef";
const script = (id: string, score: number | null, url = `https://cdn.example.net/${id}.js`) => ({
  id,
  url,
  host: "example.com",
  status: "active",
  js_integrity_score: score,
});

/** Answers every Page Shield list from `items` (by list name), recording the paths read. */
function fakeClient(items: Partial<Record<"scripts" | "connections" | "cookies", Array<Record<string, unknown>>>>) {
  const paths: string[] = [];
  const client = {
    paginate(path: string) {
      paths.push(path);
      const list = items[path.split("/").pop() as "scripts"] ?? [];
      return (async function* () {
        yield* list;
      })();
    },
  } as unknown as CloudflareClient;
  return { client, paths };
}

describe("classifying scripts with a threshold", () => {
  it("defaults to 10 and takes another threshold, strictly below", () => {
    expect(MALICIOUS_SCORE_THRESHOLD).toBe(10);
    expect(THREAT_SCORE_THRESHOLD).toBe(10);
    // 30 was malicious under the older 50; it is not any more.
    expect(classifyScript(script("a", 30))).toBeUndefined();
    expect(classifyScript(script("a", 30), 50)).toMatchObject({
      reasons: ["js_integrity_score 30 < 50"],
      verdict_by: ["js_integrity_score"],
    });
    expect(classifyScript(script("a", 10))).toBeUndefined();
    expect(classifyScript(script("a", 9))).toMatchObject({ severity: "high", reasons: ["js_integrity_score 9 < 10"] });
    expect(classifyScript(script("a", 70), 80)).toMatchObject({ reasons: ["js_integrity_score 70 < 80"] });
    expect(classify("script", script("a", 30))).toBeUndefined();
    expect(classify("script", script("a", 30), 50)).toBeDefined();
    // A report is malicious whatever the threshold.
    expect(classifyScript({ ...script("a", 90), url_reported_malicious: true }, 10)).toMatchObject({
      reasons: ["URL reported malicious"],
    });
  });

  it("the threat scores have their own threshold; a number sets the integrity one alone", () => {
    const s = { ...script("a", 90), magecart_score: 20 };
    expect(classifyScript(s)).toBeUndefined();
    expect(classifyScript(s, 50)).toBeUndefined();
    expect(classifyScript(s, { threat: 21 })).toMatchObject({
      reasons: ["magecart_score 20 < 21"],
      verdict_by: ["magecart_score"],
    });
    expect(classifyScript(s, { js_integrity: 91, threat: 21 })!.reasons).toEqual([
      "js_integrity_score 90 < 91",
      "magecart_score 20 < 21",
    ]);
  });
});

describe("audit filters and reports", () => {
  it("carries both thresholds in the filters, 10 unless given", () => {
    expect(auditFilters({})).toEqual({ malicious_below: 10, threat_below: 10 });
    expect(auditFilters({ status: ["active"], hosts: ["example.com"], maliciousBelow: 50, threatBelow: 20 })).toEqual({
      status: ["active"],
      hosts: ["example.com"],
      malicious_below: 50,
      threat_below: 20,
    });
  });

  const audit = async (format: "text" | "markdown" | "json", maliciousBelow?: number) => {
    const { client } = fakeClient({ scripts: [script("low", 5), script("mid", 30), script("ok", 90)] });
    let out = "";
    const result = await runAudit(
      client,
      Z,
      {
        format,
        ...(maliciousBelow !== undefined ? { maliciousBelow } : {}),
        now: () => new Date("2025-06-01T00:00:00Z"),
      },
      (t) => (out += t),
    );
    return { out, result };
  };

  it("classifies with the threshold given and says which in the text report", async () => {
    const loose = await audit("text", 50);
    expect(loose.result.totals.malicious_scripts).toBe(2);
    expect(loose.out.split("\n").find((l) => l.startsWith("Page Shield audit of zone"))).toBe(
      `Page Shield audit of zone ${Z} (status active (default); malicious: js_integrity_score below 50, ` +
        `magecart/malware/cryptomining_score below 10, or reported)`,
    );
    const byDefault = await audit("text");
    expect(byDefault.result.totals.malicious_scripts).toBe(1);
    expect(byDefault.out.split("\n").find((l) => l.startsWith("Page Shield audit of zone"))).toBe(
      `Page Shield audit of zone ${Z} (status active (default); malicious: js_integrity_score below 10, ` +
        `magecart/malware/cryptomining_score below 10, or reported)`,
    );
  });

  it("says it in the Markdown and JSON reports too", async () => {
    expect((await audit("markdown", 50)).out).toContain(
      "Filters: status active (default); malicious: js\\_integrity\\_score below 50, " +
        "magecart/malware/cryptomining\\_score below 10, or reported\n",
    );
    const doc = JSON.parse((await audit("json")).out);
    expect(doc.zones[0].filters).toEqual({ malicious_below: 10, threat_below: 10 });
    expect(doc.zones[0].findings.map((f: { id: string }) => f.id)).toEqual(["low"]);
    expect(JSON.parse((await audit("json", 50)).out).zones[0].filters).toEqual({
      malicious_below: 50,
      threat_below: 10,
    });
  });
});

describe("--malicious-below", () => {
  it("takes a whole score from 1 to 100", () => {
    expect(parseScoreThreshold("50")).toBe(50);
    expect(parseScoreThreshold("1")).toBe(1);
    expect(parseScoreThreshold("100")).toBe(100);
    expect(parseScoreThreshold(" 10 ")).toBe(10);
    for (const bad of ["0", "101", "1.5", "-5", "ten", "", undefined, "1e2"]) {
      expect(() => parseScoreThreshold(bad), String(bad)).toThrow(UsageError);
    }
    expect(() => parseScoreThreshold("0")).toThrow('--malicious-below must be a whole number from 1 to 100, got "0"');
  });

  it("is a usage error (exit 3) on audit", async () => {
    const m = memoryIO({ env: { CLOUDFLARE_API_TOKEN: "t".repeat(40) } });
    expect(await main(["audit", "--zone", Z, "--malicious-below", "0"], m.io)).toBe(3);
    expect(m.stderr()).toBe('Error: --malicious-below must be a whole number from 1 to 100, got "0"\n');
  });

  it("--threat-below is checked the same way and names itself", async () => {
    expect(() => parseScoreThreshold("0", "--threat-below")).toThrow(
      '--threat-below must be a whole number from 1 to 100, got "0"',
    );
    const m = memoryIO({ env: { CLOUDFLARE_API_TOKEN: "t".repeat(40) } });
    expect(await main(["audit", "--zone", Z, "--threat-below", "101"], m.io)).toBe(3);
    expect(m.stderr()).toBe('Error: --threat-below must be a whole number from 1 to 100, got "101"\n');
  });

  it("is a usage error (exit 3) on csp suggest", async () => {
    const m = memoryIO({ env: { CLOUDFLARE_API_TOKEN: "t".repeat(40) } });
    expect(await main(["csp", "suggest", "--zone", Z, "--malicious-below", "abc"], m.io)).toBe(3);
    expect(m.stderr()).toBe('Error: --malicious-below must be a whole number from 1 to 100, got "abc"\n');
  });
});

describe("csp suggest with a threshold", () => {
  it("leaves out the hosts of scripts below the threshold, and says which thresholds it used", async () => {
    const items = {
      scripts: [
        script("a", 30, "https://cdn.a.test/a.js"),
        script("b", 5, "https://cdn.b.test/b.js"),
        { ...script("c", 80, "https://cdn.c.test/c.js"), cryptomining_score: 2 },
      ],
    };
    const byDefault = await suggestCsp(fakeClient(items).client, Z);
    expect(byDefault.malicious_below).toBe(10);
    expect(byDefault.threat_below).toBe(10);
    expect(byDefault.script_src).toEqual(["https://cdn.a.test"]);
    expect(byDefault.excluded).toEqual([
      { host: "cdn.b.test", scripts: 1, connections: 0, reasons: ["js_integrity_score < 10"] },
      { host: "cdn.c.test", scripts: 1, connections: 0, reasons: ["cryptomining_score < 10"] },
    ]);
    expect(renderSuggestionText(Z, byDefault, "").split("\n")[0]).toBe(
      `CSP suggestion for zone ${Z}, from 3 active scripts and 0 connections (malicious: js_integrity_score ` +
        `below 10, magecart/malware/cryptomining_score below 10, or reported):`,
    );
    const loose = await suggestCsp(fakeClient(items).client, Z, { maliciousBelow: 50, threatBelow: 1 });
    expect(loose.script_src).toEqual(["https://cdn.c.test"]);
    expect(new CspSuggester().result().malicious_below).toBe(10);
  });
});
