// Issue 38: list-valued strings (a CSP, a Permissions-Policy) are diffed token by token: sources are
// separated by spaces, `;` and `,`, each separator a token of its own, so adding one source shows it alone.
import { describe, expect, it } from "vitest";
import { wordDiff } from "../../../src/plan/render/format.js";

const changed = (before: string, after: string) =>
  wordDiff(before, after)
    .filter((p) => p.added || p.removed)
    .map((p) => `${p.added ? "+" : "-"}${p.value}`);

describe("word diff of list-valued strings", () => {
  it("adding a source at the end of a directive shows only that source", () => {
    const before = "default-src 'self'; script-src 'self' https://a.example; img-src *";
    const after = "default-src 'self'; script-src 'self' https://a.example https://b.example; img-src *";
    expect(changed(before, after)).toEqual(["+https://b.example"]);
  });

  it("adding a source in the middle, or removing one, shows only it", () => {
    expect(
      changed("script-src 'self' https://a.example;", "script-src 'self' https://n.example https://a.example;"),
    ).toEqual(["+https://n.example"]);
    expect(changed("script-src 'self' https://a.example;", "script-src 'self';")).toEqual(["-https://a.example"]);
  });

  it("a changed directive separator and comma lists are tokens too", () => {
    // The comma that the new entry brings is added with it; its neighbours stay unchanged.
    expect(changed("camera=(), geolocation=(self)", "camera=(), geolocation=(self), usb=()")).toEqual(["+, usb=()"]);
    expect(changed("a https://x.example", "a https://y.example")).toEqual(["-https://x.example", "+https://y.example"]);
  });

  it("loses nothing: the parts but the removed ones put together are the new text", () => {
    const before = "default-src 'self';script-src https://a.example,https://b.example";
    const after = "default-src 'none'; script-src https://a.example";
    const parts = wordDiff(before, after);
    expect(parts.filter((p) => p.removed).map((p) => p.value)).toEqual(["'self'", ",https://b.example"]);
    expect(
      parts
        .filter((p) => !p.removed)
        .map((p) => p.value)
        .join(""),
    ).toBe(after);
  });
});
