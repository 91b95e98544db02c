// Filter helpers shared with the Logpush resource.
import { describe, expect, it } from "vitest";
import {
  countFilterOperators,
  filterByteLength,
  isEmptyFilter,
  parseFilterString,
  serialiseFilter,
} from "../../../src/sections/logpush_jobs/filter.js";
import type { LogpushFilter } from "../../../src/sections/logpush_jobs/index.js";

const filter: LogpushFilter = {
  where: {
    and: [
      { key: "ClientRequestHost", operator: "eq", value: "example.com" },
      {
        or: [
          { value: "/api", operator: "contains", key: "ClientRequestPath" } as never,
          { key: "EdgeResponseStatus", operator: "geq", value: 500 },
        ],
      },
    ],
  },
};

describe("filter helpers", () => {
  it("serialises compactly with keys in a fixed order", () => {
    expect(serialiseFilter(filter)).toBe(
      '{"where":{"and":[{"key":"ClientRequestHost","operator":"eq","value":"example.com"},{"or":[{"key":"ClientRequestPath","operator":"contains","value":"/api"},{"key":"EdgeResponseStatus","operator":"geq","value":500}]}]}}',
    );
    expect(serialiseFilter({ where: {} })).toBe('{"where":{}}');
    expect(serialiseFilter(undefined)).toBe('{"where":{}}');
  });

  it("counts conditions and groups", () => {
    expect(countFilterOperators(filter)).toBe(5);
    expect(countFilterOperators({ where: {} })).toBe(0);
    expect(countFilterOperators({ where: { key: "a", operator: "eq", value: 1 } })).toBe(1);
  });

  it("measures bytes as UTF-8", () => {
    expect(filterByteLength({ where: { key: "k", operator: "eq", value: "é" } })).toBe(
      '{"where":{"key":"k","operator":"eq","value":"é"}}'.length + 1,
    );
  });

  it("recognises every spelling of no filter", () => {
    for (const none of [undefined, null, "", "  ", '{"where":{}}', { where: {} }])
      expect(isEmptyFilter(none as never)).toBe(true);
    expect(isEmptyFilter(filter)).toBe(false);
    expect(isEmptyFilter("not json")).toBe(false);
  });

  it("reads the API's string back into the same object the file gives", () => {
    expect(parseFilterString(serialiseFilter(filter))).toEqual(JSON.parse(serialiseFilter(filter)));
    expect(serialiseFilter(parseFilterString(serialiseFilter(filter)))).toBe(serialiseFilter(filter));
    expect(parseFilterString(null)).toBeUndefined();
    expect(parseFilterString('{"where":{}}')).toBeUndefined();
  });
});
