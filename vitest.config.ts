import { availableParallelism } from "node:os";
import { relative } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that take seconds (fault runs over fleets of zones, the built CLI in child processes, real
 * waits for deadlines and rate limits), longest first: they start first, so that the last file to
 * finish is a short one. Within a group, and for the rest, vitest's own order (slowest first once it
 * has timings from an earlier run).
 */
const SLOW_FIRST = [
  "test/soak/one-apply",
  "test/soak/random-faults",
  "test/e2e/action-binding",
  "test/unit/docs/samples",
  "test/package/",
  "test/e2e/action",
  "test/faults/",
  "test/attacks/slow-body",
  "test/e2e/progress",
  "test/integration/",
  "test/attacks/",
  "test/e2e/pipes-and-env",
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const path = relative(f.project.config.root, f.moduleId);
      const i = SLOW_FIRST.findIndex((prefix) => path.startsWith(prefix));
      return i === -1 ? SLOW_FIRST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i, rank: rank(f) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ f }) => f);
  }
}

export default defineConfig({
  test: {
    // test/soak/ (long fault runs over fleets of zones) runs apart: `npm run test:soak`.
    include: process.env.ZONEFORM_SOAK ? ["test/soak/**/*.test.ts"] : ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...(process.env.ZONEFORM_SOAK ? [] : ["test/soak/**"])],
    globalSetup: ["test/helpers/build.ts", "test/helpers/temp-root.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Child processes, not threads: the CLI runs in-process and sets process-wide signal handlers. A
    // worker runs file after file (no isolation): starting a fresh one per file cost a third of the
    // suite's CPU on 2 cores. What the CLI leaves behind is undone by the CLI itself (signal handlers
    // removed once a run ends, caches keyed by what they hold), so files do not see each other.
    pool: "forks",
    isolate: false,
    // vitest's default is one worker fewer than the CPUs: a single one on a 2-core machine. The slow
    // files mostly wait (backoffs, latency, deadlines, rate-limit windows, child processes), not
    // compute: on 2 cores, four at a time ran them in 42 s where two took 69 s. Larger machines keep
    // the default.
    maxWorkers: Math.max(4, availableParallelism() - 1),
    sequence: { sequencer: SlowFirst },
  },
});
