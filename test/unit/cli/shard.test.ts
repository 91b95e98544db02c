import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../../src/errors.js";
import { inShard, parseShard, shardOf } from "../../../src/cli/shard.js";

const ids = Array.from({ length: 500 }, (_, i) => createHash("md5").update(`zone${i}.example`).digest("hex"));

describe("--shard K/N", () => {
  it("splits the zones into N disjoint, covering, roughly even parts", () => {
    const n = 4;
    const parts = [1, 2, 3, 4].map((k) => ids.filter((id) => inShard(id, { index: k, count: n })));
    expect(parts.flat().sort()).toEqual([...ids].sort());
    for (const p of parts) expect(p.length).toBeGreaterThan(500 / n / 2);
  });
  it("is stable: a zone's shard depends only on its id and N", () => {
    expect(ids.map((id) => shardOf(id, 3))).toEqual(ids.map((id) => shardOf(id, 3)));
    expect(inShard(ids[0]!, undefined)).toBe(true);
  });
  it("rejects malformed values with a usage error", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    for (const bad of ["0/4", "5/4", "a/b", "2", "2/0"]) expect(() => parseShard(bad)).toThrow(UsageError);
  });
});
