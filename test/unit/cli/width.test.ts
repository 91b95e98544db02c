// Issue 30 item 3: display width, fitting lines and tables to a terminal's columns, and the rule for
// the width (a terminal's columns; elsewhere COLUMNS, else no limit).
import { describe, expect, it } from "vitest";
import { memoryIO } from "../../../src/cli/io.js";
import { fitFor, outputWidth } from "../../../src/cli/width.js";
import { Redactor } from "../../../src/redact.js";
import {
  clipMiddle,
  clipUrl,
  clipWidth,
  cutApart,
  displayWidth,
  fitLine,
  fitText,
  layoutTable,
} from "../../../src/text-width.js";

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
      [
        "SEVERITY",
        { title: "URL", clip: "url" },
        { title: "HOST", yields: true, min: 1e9 },
        { title: "WHY", clip: "wrap" },
      ],
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

// Issue 47 point 6: a cut keeps what tells rows apart (start and end), and a column a cut would make
// ambiguous wraps instead; a list of reasons wraps, each reason whole or broken at a space, never cut.
describe("issue 47: 80 columns that still tell rows apart", () => {
  const NEW = "scriptmonitor_alert_new_resources";
  const LONG_URL = "scriptmonitor_alert_new_max_length_resource_url";
  const HOSTS = "scriptmonitor_alert_new_hosts";
  const MALICIOUS_HOSTS = "scriptmonitor_alert_new_malicious_hosts";

  it("cuts in the middle, keeping the start and the end, at the parts' boundaries", () => {
    expect(clipMiddle(NEW, 29)).toBe("scriptmonitor_…_new_resources");
    expect(clipMiddle(NEW, 40)).toBe(NEW);
    for (const w of [8, 12, 16, 20, 29, 33]) {
      const [a, b] = [clipMiddle(NEW, w), clipMiddle(LONG_URL, w)];
      expect(displayWidth(a)).toBeLessThanOrEqual(w);
      expect(displayWidth(b)).toBeLessThanOrEqual(w);
      expect(a, `at ${w}`).not.toBe(b);
      expect(a.startsWith("scr")).toBe(true);
      expect(b.startsWith("scr")).toBe(true);
    }
    const wide = clipMiddle("日本語のテキストです", 9);
    expect(displayWidth(wide)).toBeLessThanOrEqual(9);
    expect(wide).toMatch(/^日.*….*です$/);
    expect(clipMiddle("abcdefgh", 4)).toBe("abc…");
  });

  /** Each row's text in the column under `title` (up to the next title), its lines joined with `|`. */
  const cellsUnder = (lines: readonly string[], title: string, next?: string): string[] => {
    const from = lines[0]!.indexOf(title);
    const to = next === undefined ? undefined : lines[0]!.indexOf(next);
    const rows: string[][] = [];
    const first = lines[0]!.search(/\S/);
    for (const l of lines.slice(1)) {
      // A row starts where its first column holds something; its continuation lines are blank there.
      if (l[first] !== " " || rows.length === 0) rows.push([]);
      rows.at(-1)!.push(l.slice(from, to).trim());
    }
    return rows.map((r) => r.filter((p) => p !== "").join("|"));
  };

  it("keeps two alert types with a long shared start apart at every width", () => {
    const rows = [NEW, LONG_URL, HOSTS, MALICIOUS_HOSTS].map((t) => ["enabled", t, "email secops@example.com"]);
    for (const width of [40, 50, 60, 70, 80, 100]) {
      const lines = layoutTable(["STATE", "ALERT TYPE", "NOTIFIES"], rows, width, { indent: "  " });
      for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(width);
      const types = cellsUnder(lines, "ALERT TYPE", "NOTIFIES");
      expect(types).toHaveLength(4);
      expect(new Set(types).size, `${width}: ${types.join(" / ")}`).toBe(4);
      // Cut or wrapped, each keeps its start and its end.
      types.forEach((t, k) => {
        expect(t.startsWith("scri")).toBe(true);
        expect(rows[k]![1]!.endsWith(t.split(/[…|]/).at(-1)!)).toBe(true);
      });
    }
  });

  it("wraps a column instead of cutting it when a cut would make two cells equal", () => {
    // The two differ only in their middle: a cut keeping start and end would show them alike.
    const a = "release-2024-alpha-0001-build-final";
    const b = "release-2024-omega-0001-build-final";
    const lines = layoutTable(
      ["N", "ID", "NOTE"],
      [
        ["1", a, "x"],
        ["2", b, "y"],
      ],
      30,
    );
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(30);
    expect(lines.join("\n")).not.toContain("…");
    // Nothing of either cell is lost: its pieces, read down its column, are the cell.
    expect(cellsUnder(lines, "ID", "NOTE").map((c) => c.replaceAll("|", ""))).toEqual([a, b]);
    expect(cellsUnder(lines, "NOTE")).toEqual(["x", "y"]);
    // The other columns are blank on a row's continuation lines.
    expect(lines.filter((l) => l.startsWith("   "))).toHaveLength(2);
  });

  it("leaves a column's cells whole when a cap (the audit's 72 columns for a URL) would make two alike", () => {
    const [v1, v2] = ["v1", "v2"].map((v) => `https://cdn.example.com/${v}/${"a".repeat(60)}/app.js`);
    expect(cutApart([v1!, v2!], (u) => clipUrl(u, 72))).toEqual([v1, v2]);
    const other = "https://js.example.net/app.js";
    expect(cutApart([v1!, other], (u) => clipUrl(u, 40))).toEqual(["https://cdn.example.com/…/app.js", other]);
  });

  it("a WHY list at 80 columns: every reason whole or wrapped at a space, never cut", () => {
    const why = "magecart_score 3 < 10; URL reported malicious (Magecart); js_integrity_score 12 < 20";
    const rows = [
      ["high", "31", "https://cdn-staticfiles.top/wp-content/plugins/widget.js", why],
      ["high", "12", "https://jquery-cdn-update.com/jquery-3.7.1.min.js", "malware_score 4 < 10"],
    ];
    const cols = [
      "SEVERITY",
      "INTEGRITY",
      { title: "URL", clip: "url" as const },
      { title: "WHY", clip: "wrap" as const },
    ];
    const lines = layoutTable(cols, rows, 80, { indent: "  " });
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
    const at = displayWidth(lines[0]!.split("WHY")[0]!);
    const text = lines
      .slice(1)
      .map((l) => l.slice(at))
      .join(" ");
    expect(text).not.toMatch(/[<‹] …|…/);
    for (const reason of why.split("; ")) expect(text).toContain(reason);
    // A comparison stays on one line.
    for (const l of lines) expect(l).not.toMatch(/[<>]$|^\s*[<>]/);
    expect(lines.some((l) => l.endsWith("3 < 10;") || l.includes("magecart_score 3 < 10"))).toBe(true);
  });
});
