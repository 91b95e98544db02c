// `--shard K/N`: a stable split of the zones of a file across N runners (a CI matrix).
import { createHash } from "node:crypto";
import type { Command } from "commander";
import { UsageError } from "../errors.js";

export interface Shard {
  index: number;
  count: number;
}

export function parseShard(value: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard ${value}: expected K/N with 1 ≤ K ≤ N, e.g. --shard 2/4`);
  }
  return { index, count };
}

export function shardOf(zoneId: string, count: number): number {
  const h = createHash("sha256").update(zoneId).digest();
  return (h.readUInt32BE(0) % count) + 1;
}

export function inShard(zoneId: string, shard: Shard | undefined): boolean {
  return !shard || shardOf(zoneId, shard.count) === shard.index;
}

export function addShardOption(cmd: Command): Command {
  return cmd.option(
    "--shard <K/N>",
    "only the zones of shard K of N (a stable split by zone id, for CI matrices)",
    parseShard,
  );
}
