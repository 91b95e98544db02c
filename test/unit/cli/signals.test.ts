// Issue 38: the report of an interrupted apply. The second signal's counts add up to the changes of
// the run, each counted once; the first signal ends the progress line so that nothing redraws it
// beside the outcome lines.
import { afterEach, describe, expect, it } from "vitest";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { memoryIO } from "../../../src/cli/io.js";
import { guardSignals, stoppedAtOnce, type SignalGuard } from "../../../src/cli/signals.js";

const counts = (text: string) => {
  const m = /Of (\d+) changes?: (\d+) made, (\d+) failed, (\d+) sent but unanswered .*?, (\d+) not made\./.exec(text);
  expect(m, text).not.toBeNull();
  return m!.slice(1).map(Number);
};

describe("the second signal's report", () => {
  it("counts each change once: made + failed + unanswered + not made = total", () => {
    const pending = Array.from({ length: 8 }, (_, i) => ({ method: "PUT", path: `zones/z${i}/rulesets/r` }));
    const text = stoppedAtOnce({ made: 3, failed: 1, total: 24 }, pending);
    const [total, made, failed, unanswered, notMade] = counts(text);
    expect([total, made, failed, unanswered, notMade]).toEqual([24, 3, 1, 8, 12]);
    expect(made! + failed! + unanswered! + notMade!).toBe(total);
    expect(text.match(/^ {2}unknown {2}PUT zones\/z\d\/rulesets\/r$/gm)).toHaveLength(8);
    expect(text).toContain("they may or may not have landed");
    expect(text.endsWith("Run `zoneform plan` to see the live state.\n")).toBe(true);
  });

  it("never counts below zero, and names one change in the singular", () => {
    const text = stoppedAtOnce({ made: 0, failed: 0, total: 1 }, [{ method: "POST", path: "zones/z/x" }]);
    expect(counts(text)).toEqual([1, 0, 0, 1, 0]);
    expect(text).toContain("Of 1 change: ");
    expect(counts(stoppedAtOnce({ made: 2, failed: 0, total: 2 }, []))).toEqual([2, 2, 0, 0, 0]);
  });

  it("shows the paths of the unanswered writes printable", () => {
    const text = stoppedAtOnce({ made: 0, failed: 0, total: 1 }, [{ method: "PUT", path: "zones/z/\u001b[31mx" }]);
    expect(text).not.toContain("\u001b");
  });
});

describe("the first signal", () => {
  let guard: SignalGuard | undefined;
  afterEach(() => guard?.end());

  it("ends the progress line before the outcome lines are written", () => {
    const { io, stderr } = memoryIO();
    const events: string[] = [];
    guard = guardSignals(io);
    const client = { stop: () => events.push("stop"), onTheWire: () => [] } as unknown as CloudflareClient;
    guard.writesBegin(client, () => ({ made: 0, failed: 0, total: 3 }), { end: () => events.push("end") });
    // The handler guardSignals installed (the last one), called as Node calls it.
    const handler = process.listeners("SIGINT").at(-1) as (s: NodeJS.Signals) => void;
    handler("SIGINT");
    expect(events).toEqual(["stop", "end"]);
    expect(guard.stopping()).toBe(true);
    expect(stderr()).toContain("Interrupt (SIGINT) received: sending nothing more");
  });
});
