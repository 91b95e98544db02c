// src/canonical-json.ts: equal values read alike whatever the order of their keys.
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/canonical-json.js";

describe("canonicalJson", () => {
  it("sorts keys at every depth and keeps lists in their order", () => {
    const a = { b: 1, a: { d: [3, { y: 1, x: 2 }], c: "s" } };
    const b = { a: { c: "s", d: [3, { x: 2, y: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":"s","d":[3,{"x":2,"y":1}]},"b":1}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it("leaves out undefined members, writes undefined list items and a bare undefined as null", () => {
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
    expect(canonicalJson([undefined, 1])).toBe("[null,1]");
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson("x")).toBe('"x"');
  });

  it("keeps a key named __proto__ as a key, sorted or not", () => {
    const parsed = JSON.parse('{"z":1,"__proto__":{"polluted":true}}') as object;
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"polluted":true},"z":1}');
    expect(canonicalJson(JSON.parse('{"__proto__":2,"a":1}'))).toBe('{"__proto__":2,"a":1}');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("compares keys by their code units, as sort() does", () => {
    expect(canonicalJson({ b: 1, B: 2, é: 3, a: 4 })).toBe('{"B":2,"a":4,"b":1,"é":3}');
  });
});
