// `csp suggest` on URLs a skimmer chose: a `;` or `,` in a host (a URL parser accepts both) must not
// add a directive or a second policy, a look-alike host is not allowed, and what is dropped is listed
// with the reason (in the text, as YAML comments, and with a Warning line).
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { droppedLines, droppedWarning, policyBlock, renderSuggestionText } from "../../../src/cli/commands/csp.js";
import { CspSuggester } from "../../../src/csp/suggest.js";
import { policyValueProblems } from "../../../src/sections/page_shield/csp-grammar.js";

const item = (url: string, host = "shop.example", extra: Record<string, unknown> = {}) => ({
  id: url,
  url,
  host,
  js_integrity_score: 90,
  ...extra,
});

const HOSTILE = [
  "https://a.example;report-uri/x.js",
  "https://attacker.example/collect.js",
  "https://js.stripe.com,script-src/x.js",
  "https://x.example'unsafe-inline'/y.js",
  "https://js.stripe.com.evil.example/skimmer.js",
  "https://js.stripe.com@evil.example/skimmer.js",
  "https://js.stri\u200bpe.com/v3/",
  "https://js.xn--strpe-p2e.com/v3/",
  "https://js.strlpe.com/v3/",
  "https://cdn.example/${env:CLOUDFLARE_API_TOKEN}.js",
];

function suggest() {
  const s = new CspSuggester();
  s.add("script", item("https://js.stripe.com/v3/"));
  for (const url of HOSTILE) s.add("script", item(url));
  s.add("connection", item("https://api.stripe.com;report-uri/v1", "shop.example"));
  s.add("script", item("https://cdn.example/a.js", 'shop.example" or true or "'));
  return s.result();
}

describe("csp suggest on hostile URLs", () => {
  it("emits only valid host-sources: no directive or policy can be injected", () => {
    const r = suggest();
    expect(r.script_src).toEqual(["https://attacker.example", "https://cdn.example", "https://js.stripe.com"]);
    expect(r.connect_src).toEqual([]);
    expect(r.value).toBe("script-src https://attacker.example https://cdn.example https://js.stripe.com");
    expect(policyValueProblems(r.value)).toEqual([]);
    expect(r.page_hosts).toEqual(["shop.example"]);
    expect(r.counts.dropped).toBe(9);
  });

  it("lists what it dropped and why", () => {
    const r = suggest();
    const lines = droppedLines(r);
    expect(lines).toContain(
      "script https://a.example;report-uri/x.js: not a CSP source: its host: a ';' would end the directive and " +
        "start another one",
    );
    expect(lines).toContain(
      "script https://js.stripe.com,script-src/x.js: not a CSP source: its host: a ',' would start a second policy",
    );
    expect(
      lines.some((l) =>
        l.startsWith("script https://x.example'unsafe-inline'/y.js: not a CSP source: its host: a quote"),
      ),
    ).toBe(true);
    expect(lines).toContain(
      "script https://js.stripe.com.evil.example/skimmer.js: look-alike host: looks like js.stripe.com: " +
        "js.stripe.com.evil.example carries stripe.com in a longer name, but is under evil.example",
    );
    expect(lines.find((l) => l.includes("js.stri\\u200bpe.com"))).toContain("invisible character U+200B");
    expect(lines.some((l) => l.includes("js.stripe.com@evil.example") && l.includes("user info"))).toBe(true);
    expect(lines.some((l) => l.startsWith("connection https://api.stripe.com;report-uri/v1:"))).toBe(true);
    expect(lines.some((l) => l.startsWith("page host https://cdn.example/a.js: not a host the policy"))).toBe(true);
    expect(droppedWarning(r)).toBe(
      "Warning: csp suggest left out 10 item(s) whose URL or page host is not a valid CSP source or is a " +
        "look-alike of a trusted host; the output lists each with the reason\n",
    );
  });

  it("the YAML block is one policy, its comments one line each, read back as written", () => {
    const r = suggest();
    const block = policyBlock(r, { description: "from ${env:DESC}", action: "log" });
    const doc = parse(block) as Array<Record<string, string>>;
    expect(doc).toHaveLength(1);
    expect(doc[0]!.value).toBe(r.value);
    expect(doc[0]!.expression).toBe('http.host eq "shop.example"');
    // Escaped as export escapes it: the file reads back the text, not a variable.
    expect(doc[0]!.description).toBe("from $${env:DESC}");
    expect(block).toContain("# Left out, not a CSP source or from a look-alike host:\n");
    for (const line of block.split("\n").filter((l) => l.startsWith("#"))) expect(line).not.toMatch(/[\r\u200b]/);
    const text = renderSuggestionText("z", r, block);
    expect(text).toContain("Left out, not a valid CSP source or from a look-alike host (never allow these):");
    expect(text).not.toContain("report-uri https://");
  });

  it("keeps at most MAX_DROPPED rows and counts the rest", () => {
    const s = new CspSuggester();
    for (let i = 0; i < 60; i++) s.add("script", item(`https://h${i}.example;x/a.js`));
    const r = s.result();
    expect(r.dropped).toHaveLength(50);
    expect(r.dropped_more).toBe(10);
    expect(droppedLines(r).at(-1)).toBe("…and 10 more");
    expect(r.value).toBe("script-src 'none'");
  });
});
