// `export --defaults`: the largest part every zone holds alike goes to defaults, and each zone merged
// with it (the loader's own merge) is the zone as exported.
import { describe, expect, it } from "vitest";
import { mergeDefaults } from "../../../src/config/defaults.js";
import { shareDefaults } from "../../../src/export/defaults.js";

const A = "5ababd603b22780302dd8d83498e5172";
const B = "28bf0eba6631b5563247f1b42d9a7f17";
const C = "1bdf72e04d6b50c82a48c7e4dd38cc69";

type Rec = Record<string, unknown>;

/** Shares, and checks that every zone merged back is the zone it was. */
function shared(zones: Rec[]) {
  const result = shareDefaults(zones);
  expect(result.zones.map((z) => mergeDefaults(result.defaults ?? {}, z))).toEqual(zones);
  return result;
}

describe("shareDefaults", () => {
  it("shares mappings key by key at every depth, and values only when every zone has them alike", () => {
    const zones = [
      { zone_id: A, name: "a", waf: { owasp: { enabled: true, paranoia_level: 2, action: "log" } }, x: [1, 2] },
      { zone_id: B, name: "b", waf: { owasp: { enabled: true, paranoia_level: 3, action: "log" } }, x: [1, 2] },
      { zone_id: C, name: "c", waf: { owasp: { enabled: true, paranoia_level: 2 } }, x: [1, 2] },
    ];
    expect(shared(zones)).toEqual({
      defaults: { waf: { owasp: { enabled: true } }, x: [1, 2] },
      zones: [
        { zone_id: A, name: "a", waf: { owasp: { paranoia_level: 2, action: "log" } } },
        { zone_id: B, name: "b", waf: { owasp: { paranoia_level: 3, action: "log" } } },
        { zone_id: C, name: "c", waf: { owasp: { paranoia_level: 2 } } },
      ],
    });
  });

  it("shares a list only when it is the same in every zone, never a part of it", () => {
    const zones = [
      { zone_id: A, logs: { custom_fields: { cookies: ["a", "b"], request_headers: [] } } },
      { zone_id: B, logs: { custom_fields: { cookies: ["a"], request_headers: [] } } },
    ];
    expect(shared(zones)).toEqual({
      defaults: { logs: { custom_fields: { request_headers: [] } } },
      zones: [
        { zone_id: A, logs: { custom_fields: { cookies: ["a", "b"] } } },
        { zone_id: B, logs: { custom_fields: { cookies: ["a"] } } },
      ],
    });
  });

  it("leaves in the zones a key some zone lacks, even with the same value elsewhere", () => {
    const zones = [
      { zone_id: A, page_shield: { enabled: true, prune: true } },
      { zone_id: B, page_shield: { enabled: true } },
    ];
    expect(shared(zones)).toEqual({
      defaults: { page_shield: { enabled: true } },
      zones: [{ zone_id: A, page_shield: { prune: true } }, { zone_id: B }],
    });
  });

  it("never shares a zone's identity, a zone-only section or a list holding id pins", () => {
    const policies = [{ id: "0123456789abcdef0123456789abcdef", description: "p" }];
    const zones = [
      { zone_id: A, name: "same", custom_hostnames: [], page_shield: { policies, enabled: true } },
      { zone_id: A, name: "same", custom_hostnames: [], page_shield: { policies, enabled: true } },
    ];
    expect(shared(zones)).toEqual({
      defaults: { page_shield: { enabled: true } },
      zones: [
        { zone_id: A, name: "same", custom_hostnames: [], page_shield: { policies } },
        { zone_id: A, name: "same", custom_hostnames: [], page_shield: { policies } },
      ],
    });
  });

  it("moves a whole section shared alike, and an empty mapping too", () => {
    const zones = [
      { zone_id: A, waf: {}, page_shield: { enabled: false, policies: [] } },
      { zone_id: B, waf: {}, page_shield: { enabled: false, policies: [] } },
    ];
    expect(shared(zones)).toEqual({
      defaults: { waf: {}, page_shield: { enabled: false, policies: [] } },
      zones: [{ zone_id: A }, { zone_id: B }],
    });
  });

  it("writes no defaults for one zone, or when nothing is shared", () => {
    expect(shared([{ zone_id: A, waf: { owasp: { enabled: true } } }])).toEqual({
      zones: [{ zone_id: A, waf: { owasp: { enabled: true } } }],
    });
    expect(
      shared([
        { zone_id: A, waf: { a: 1 } },
        { zone_id: B, waf: { a: 2 } },
      ]),
    ).toEqual({
      zones: [
        { zone_id: A, waf: { a: 1 } },
        { zone_id: B, waf: { a: 2 } },
      ],
    });
  });
});
