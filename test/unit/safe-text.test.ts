import { describe, expect, it } from "vitest";
import { printable } from "../../src/safe-text.js";

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

  it("leaves no unsafe character at all, and is idempotent", () => {
    const all = [...C0, "\u007f", ...C1, ...FORMAT].join("x");
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
