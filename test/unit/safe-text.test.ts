import { describe, expect, it } from "vitest";
import { hasUnsafe, printable, safeJson, sarifMessage } from "../../src/safe-text.js";

const C0 = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i));
const C1 = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(0x80 + i));
const FORMAT = [
  "\u061c",
  "\u200e",
  "\u200f",
  "\u2028",
  "\u2029",
  "\u202a",
  "\u202b",
  "\u202c",
  "\u202d",
  "\u202e",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
];

/** Invisible characters: zero-width, word joiner and invisible operators, BOM, soft hyphen, fillers. */
const INVISIBLE = [
  "\u00ad",
  "\u034f",
  "\u115f",
  "\u180e",
  "\u200b",
  "\u200c",
  "\u200d",
  "\u2060",
  "\u2061",
  "\u2062",
  "\u2063",
  "\u2064",
  "\u206a",
  "\u3164",
  "\ufe00",
  "\ufe0f",
  "\ufeff",
  "\ufff9",
];
/** Beyond U+FFFF: tag characters (an invisible "ignore" spelled in tags), variation selectors supplement. */
const ASTRAL = ["\u{e0001}", "\u{e0020}", "\u{e0041}", "\u{e007f}", "\u{e0100}", "\u{e01ef}", "\u{1d173}"];

describe("printable", () => {
  it("returns text without such characters as it is, the same string", () => {
    for (const s of [
      "",
      "plain ascii",
      "script-src 'self' https://js.stripe.com",
      'http.host eq "é.example" 日本 🙂',
      "C:\\path\\u001b",
      "\u00a0nbsp\u00ff",
    ]) {
      expect(printable(s)).toBe(s);
    }
  });

  it("escapes cursor-up and erase-line sequences, carriage return, backspace and BEL", () => {
    expect(printable("ok\u001b[1A\u001b[2K\rgone\b\u0007")).toBe("ok\\u001b[1A\\u001b[2K\\rgone\\b\\u0007");
  });

  it("writes every C0 control as JSON.stringify does, so quoted and bare values read alike", () => {
    for (const c of C0) expect(printable(c)).toBe(JSON.stringify(c).slice(1, -1));
    expect(printable("a\nb\tc\fd\u000be")).toBe("a\\nb\\tc\\fd\\u000be");
  });

  it("escapes DEL, every C1 control and the bidirectional and line-separator characters as \\uXXXX", () => {
    expect(printable("\u007f")).toBe("\\u007f");
    for (const c of [...C1, ...FORMAT])
      expect(printable(`a${c}b`)).toBe(`a\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}b`);
    expect(printable("\u009b2K")).toBe("\\u009b2K");
  });

  it("escapes zero-width, invisible and tag characters and variation selectors, visibly", () => {
    for (const c of INVISIBLE)
      expect(printable(`a${c}b`)).toBe(`a\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}b`);
    // Beyond U+FFFF: the two UTF-16 halves, as JSON writes them.
    expect(printable("x\u{e0041}y")).toBe("x\\udb40\\udc41y");
    for (const c of ASTRAL) {
      const out = printable(`a${c}b`);
      expect(out).toMatch(/^a(\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2})b$/);
      expect(JSON.parse(`"${out.slice(1, -1)}"`)).toBe(c);
    }
    // An unpaired surrogate is not a character: escaped too.
    expect(printable("a\ud800b\udc00c")).toBe("a\\ud800b\\udc00c");
  });

  it("keeps visible text beyond ASCII as it is: letters, CJK, emoji, a pair of surrogates", () => {
    for (const s of ["é日本🙂", "\u{1f600}", "ünïcödé", "\u00a0", "\u200a hair space"]) expect(printable(s)).toBe(s);
  });

  it("leaves no unsafe character at all, and is idempotent", () => {
    const all = [...C0, "\u007f", ...C1, ...FORMAT, ...INVISIBLE, ...ASTRAL].join("x");
    const out = printable(all);
    expect(out).toMatch(/^[\x20-\x7e]*$/);
    expect(printable(out)).toBe(out);
  });

  it("keepNewlines keeps real newlines and escapes everything else, carriage returns included", () => {
    expect(printable("line one\nline two \u001b[2K\r\n", { keepNewlines: true })).toBe(
      "line one\nline two \\u001b[2K\\r\n",
    );
    expect(printable("a\u2028b", { keepNewlines: true })).toBe("a\\u2028b");
    expect(printable("no newline kept\n")).toBe("no newline kept\\n");
  });

  it("is fast on long text without anything to escape", () => {
    const long = "script-src 'self' https://cdn.example ".repeat(50_000);
    // A quadratic scan of 2 MB, 20 times, would outlast the test's timeout (no wall-clock assert).
    for (let i = 0; i < 20; i++) expect(printable(long)).toBe(long);
  });
});

describe("safeJson", () => {
  it("writes invisible and bidirectional characters as JSON escapes: the same value, read back", () => {
    const value = { a: `x\u202ey\u200b\u2028\u{e0041}\u0007`, b: ["\ufeff", 1, null], c: "plain é 🙂" };
    const text = safeJson(value, 2);
    expect(hasUnsafe(text.replace(/\n/g, ""))).toBe(false);
    expect(text).toContain("x\\u202ey\\u200b\\u2028\\udb40\\udc41\\u0007");
    expect(text).toContain("plain é 🙂");
    expect(JSON.parse(text)).toEqual(value);
    expect(safeJson({ plain: "text" })).toBe(JSON.stringify({ plain: "text" }));
  });
});

describe("sarifMessage", () => {
  it("escapes brackets so that no embedded link is formed, and is printable", () => {
    expect(sarifMessage("see [docs](https://evil.example) \u202e")).toBe(
      "see \\[docs\\](https://evil.example) \\u202e",
    );
    expect(sarifMessage("[1](0)")).not.toMatch(/(^|[^\\])\[/);
  });
});

describe("safeYamlStringify", () => {
  it("writes a string with invisible or bidirectional characters double-quoted with YAML escapes, read back the same", async () => {
    const { parse } = await import("yaml");
    const { safeYamlStringify } = await import("../../src/safe-yaml.js");
    const value = { a: "x\u202ey\u200b\u{e0041}\u001b[2K", b: "plain é 🙂", c: ["line\nbreak\u2066"] };
    const text = safeYamlStringify(value, { lineWidth: 0 });
    expect(hasUnsafe(text.replace(/\n/g, ""))).toBe(false);
    expect(text).toContain('a: "x\\u202ey\\u200b\\U000e0041\\e[2K"');
    expect(text).toContain("b: plain é 🙂");
    expect(parse(text)).toEqual(value);
  });
});
