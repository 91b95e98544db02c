// Issue 30 item 3: display width, fitting lines and tables to a terminal's columns, and the rule for
// the width (a terminal's columns; elsewhere COLUMNS, else no limit).
import { describe, expect, it } from "vitest";
import { memoryIO } from "../../../src/cli/io.js";
import { fitFor, outputWidth } from "../../../src/cli/width.js";
import { Redactor } from "../../../src/redact.js";
import { clipUrl, clipWidth, displayWidth, fitLine, fitText, layoutTable } from "../../../src/text-width.js";

describe("display width", () => {
  it("counts East Asian wide characters as 2, colour escapes and combining marks as 0", () => {
    expect(displayWidth("abc")).toBe(3);
    expect(displayWidth("日本語")).toBe(6);
    expect(displayWidth("한국")).toBe(4);
    expect(displayWidth("\u001b[31mred\u001b[39m")).toBe(3);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(displayWidth("→…")).toBe(2);
  });

  it("cuts to a width with an ellipsis, a wide character never split", () => {
    expect(clipWidth("abcdef", 6)).toBe("abcdef");
    expect(clipWidth("abcdefg", 6)).toBe("abcde…");
    expect(clipWidth("日本語テキスト", 6)).toBe("日本…");
    expect(displayWidth(clipWidth("日本語テキスト", 6))).toBeLessThanOrEqual(6);
  });
});

describe("fitting lines", () => {
  it("wraps at spaces with a hanging indent, every line within the width", () => {
    const line = `  Error: ${"word ".repeat(40).trim()}`;
    const out = fitLine(line, 40);
    expect(out.length).toBeGreaterThan(1);
    for (const l of out) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    expect(out[0]!.startsWith("  Error: word")).toBe(true);
    expect(out[1]!.startsWith("      word")).toBe(true);
    expect(out.join(" ").replace(/\s+/g, " ").trim()).toBe(line.trim());
  });

  it("breaks a long value (a one-line JSON) without losing a character, or cuts it with …", () => {
    const json =
      `      + output_options: ` +
      `${JSON.stringify({ field_names: Array.from({ length: 30 }, (_, i) => `Field${i}`), timestamp_format: "rfc3339" })}`;
    const broken = fitLine(json, 80, { long: "break" });
    for (const l of broken) expect(displayWidth(l)).toBeLessThanOrEqual(80);
    expect(
      broken
        .map((l) => l.trim())
        .join("")
        .replace("+ output_options: ", ""),
    ).toBe(json.trim().replace("+ output_options: ", ""));
    const cut = fitLine(json, 80);
    expect(cut).toHaveLength(2);
    expect(cut[1]!.endsWith("…")).toBe(true);
    expect(displayWidth(cut[1]!)).toBe(80);
  });

  it("leaves text alone without a width, and short lines as they are", () => {
    const text = `${"x".repeat(300)}\nshort\n`;
    expect(fitText(text, undefined)).toBe(text);
    expect(fitText("short\n", 80)).toBe("short\n");
  });
});

describe("tables", () => {
  const header = ["SEVERITY", "INTEGRITY", "URL", "HOST", "STATUS", "WHY"];
  const rows = [
    [
      "high",
      "3",
      `https://cdn.example.com/${"a".repeat(60)}.js`,
      "cdn.example.com",
      "active",
      "js_integrity_score 3 below 10 (malicious)",
    ],
  ];

  it("narrows the widest columns to fit, one line per row, cells cut with …", () => {
    const lines = layoutTable(header, rows, 80, { indent: "  " });
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(80);
    expect(lines[1]).toContain("…");
    expect(lines[0]!.startsWith("  SEVERITY  INTEGRITY  URL")).toBe(true);
  });

  it("shows more on a wider terminal, everything without a limit", () => {
    const at80 = layoutTable(header, rows, 80)[1]!;
    const at120 = layoutTable(header, rows, 120)[1]!;
    expect(displayWidth(at120)).toBeGreaterThan(displayWidth(at80));
    expect(displayWidth(at120)).toBeLessThanOrEqual(120);
    expect(layoutTable(header, rows, undefined)[1]).toContain(rows[0]![2]);
  });
});

describe("the output width rule", () => {
  it("a terminal's width; off a terminal COLUMNS; else no limit", () => {
    expect(outputWidth({ write() {}, isTTY: true, columns: 100 }, { COLUMNS: "60" })).toBe(100);
    expect(outputWidth({ write() {}, isTTY: false, columns: undefined }, { COLUMNS: "120" })).toBe(120);
    expect(outputWidth({ write() {}, isTTY: false }, {})).toBeUndefined();
    expect(outputWidth({ write() {}, isTTY: false }, { COLUMNS: "wide" })).toBeUndefined();
    expect(outputWidth({ write() {}, isTTY: true, columns: 10 }, {})).toBe(40);
  });

  it("redacts before it cuts: no piece of a secret survives a cut", () => {
    const { io } = memoryIO({ env: { COLUMNS: "40" } });
    const secrets = new Redactor();
    const secret = "s3cr3t-value-0123456789abcdef";
    secrets.add(secret);
    io.secrets = secrets;
    const out = fitFor(io, io.stdout, `  ~ destination: https://logs.example/x?key=${secret}&more=${"y".repeat(60)}`);
    expect(out).not.toContain(secret.slice(0, 6));
    for (const l of out.split("\n")) expect(displayWidth(l)).toBeLessThanOrEqual(40);
  });
});

// Issue 38: widths from string-width; URLs cut in the middle; tables sized by what they hold; breaks at
// token boundaries; colour runs closed per line.
describe("issue 38: an 80-column terminal", () => {
  it("counts an emoji, a family emoji, a flag and CJK as two columns each", () => {
    expect(displayWidth("👍")).toBe(2);
    expect(displayWidth("👨‍👩‍👧")).toBe(2);
    expect(displayWidth("🇫🇷")).toBe(2);
    expect(displayWidth("漢字かな")).toBe(8);
    expect(displayWidth("ok ✅ done")).toBe(10);
    expect(clipWidth("ab👍👍👍", 5)).toBe("ab👍…");
    expect(clipWidth("👨‍👩‍👧👨‍👩‍👧x", 3)).toBe("👨‍👩‍👧…");
  });

  it("cuts a URL in its middle: scheme and host, …, then the file name", () => {
    const url = "https://cdn.example.com/assets/vendor/2024/build-0123456789abcdef/checkout.min.js";
    const cut = clipUrl(url, 44);
    expect(cut).toBe("https://cdn.example.com/…/checkout.min.js");
    expect(displayWidth(cut)).toBeLessThanOrEqual(44);
    expect(clipUrl(url, 200)).toBe(url);
    // Too narrow for the host and a path: cut at the end, within the width.
    expect(clipUrl(url, 12)).toBe("https://cdn…");
    expect(clipUrl("not a url at all, a long text", 10)).toBe("not a url…");
  });

  it("sizes columns by what they hold: short ones whole, the long ones share the rest", () => {
    const why = "js_integrity_score 3 below 10 (malicious); first seen today";
    const url = `https://cdn.example.com/${"a".repeat(60)}/app.js`;
    const lines = layoutTable(
      ["SEVERITY", { title: "URL", clip: "url" }, { title: "HOST", yields: true, min: 1e9 }, "WHY"],
      [["high", url, "cdn.example.com", why]],
      80,
      { indent: "  " },
    );
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(80);
    const row = lines[1]!;
    expect(row).toContain("https://cdn.example.com/…/app.js");
    // HOST yields: the URL shows the host.
    expect(lines[0]).not.toContain("HOST");
    // The reason keeps far more than 7 characters.
    expect(row).toMatch(/js_integrity_score 3 below/);
  });

  it("shortens hash columns first, then drops them, at narrow widths", () => {
    const hash = "a".repeat(64);
    const header = [
      "STATE",
      { title: "URL", clip: "url" as const },
      { title: "PINNED", yields: true, min: 9 },
      { title: "SEEN HASH", yields: true, min: 9 },
    ];
    const rows = [["authorized", "https://js.example.com/lib/v1/app.js", hash, hash]];
    const at100 = layoutTable(header, rows, 100);
    expect(at100[0]).toContain("SEEN HASH");
    expect(at100[1]).toContain("aaaaaaaa…");
    expect(at100[1]).not.toContain("a".repeat(20));
    const at40 = layoutTable(header, rows, 40);
    expect(at40[0]).not.toContain("SEEN HASH");
    for (const l of at100) expect(displayWidth(l)).toBeLessThanOrEqual(100);
    for (const l of at40) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    expect(at40[1]).toContain("https://js.example.com/…");
  });

  it("breaks a long API path at its slashes, never inside an id", () => {
    const id = "0123456789abcdef0123456789abcdef";
    const path = `PUT zones/${id}/rulesets/${id.replace(/0/g, "f")}/rules/${id.replace(/1/g, "e")}?x=1`;
    const out = fitLine(`  Error: ${path} answered HTTP 400`, 50, { long: "break" });
    for (const l of out) expect(displayWidth(l)).toBeLessThanOrEqual(50);
    const text = out.join("\n");
    for (const piece of [id, id.replace(/0/g, "f"), id.replace(/1/g, "e")]) expect(text).toContain(piece);
    expect(out.map((l) => l.trim()).join("")).toContain(path.replace("PUT ", ""));
  });

  it("closes a dim or coloured run at the end of a line and opens it again on the next", () => {
    const dim = "\u001b[2m";
    const line = `  ${dim}${"lorem ipsum ".repeat(12).trim()}\u001b[22m done`;
    const out = fitLine(line, 40);
    expect(out.length).toBeGreaterThan(2);
    for (const l of out.slice(0, -1)) expect(l.endsWith("\u001b[0m")).toBe(true);
    for (const l of out.slice(1)) expect(l.trimStart().startsWith(dim)).toBe(true);
    for (const l of out) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    // The last line closes the run itself and adds no reset.
    expect(out.at(-1)!.endsWith(" done")).toBe(true);
  });
});
