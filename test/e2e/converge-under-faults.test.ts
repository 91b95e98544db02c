// Issue 47, point 1: one apply converges under transient faults and duplicates nothing. The emulator's
// mix: 10 % of the calls answered 500 before anything happens, and 5 % made and then answered with a reset
// connection, on the writes only and then on every method, two seeds each. A create that failed is sent again
// only once its whole list, read again, shows nothing equal was made; one made is adopted.
import { describe, expect, it } from "vitest";
import { TestEmulator, isWrite, runCli } from "../helpers/cli.js";
import { createFleet, expectConverged } from "../helpers/fleet.js";

const ZONES = Number(process.env.CONVERGE_ZONES ?? 6);
const emu = TestEmulator.perFile();

async function addFaults(seed: number, methods: readonly (string | undefined)[]): Promise<void> {
  let n = 0;
  for (const method of methods) {
    const only = method ? { method } : {};
    await emu.fault({ ...only, status: 500, probability: 0.1, seed: seed * 100 + n++ });
    await emu.fault({ ...only, reset: true, after: true, probability: 0.05, seed: seed * 100 + n++ });
  }
}

const MIXES = {
  "the writes": ["POST", "PUT", "PATCH", "DELETE"],
  "every method": [undefined],
} as const;

describe("one apply converges under transient faults", () => {
  for (const [what, methods] of Object.entries(MIXES)) {
    for (const seed of [3, 5]) {
      it(`over ${ZONES} zones, faults on ${what} (seed ${seed})`, async () => {
        const fleet = await createFleet(emu, ZONES, `conv${seed}${methods.length}`);
        await emu.admin("PUT", "/rate-limit", { requests: 100_000, seconds: 300 });
        await emu.clearRequests();
        await addFaults(seed, methods);
        const r = await runCli(emu, ["apply", "-c", fleet.config, "--auto-approve", "--rate-limit", "100000/300"], {
          env: fleet.env,
        });
        const fired = (await emu.admin<Array<{ fired: number }>>("GET", "/faults")).reduce((n, f) => n + f.fired, 0);
        expect(fired, "faults fired").toBeGreaterThan(5);
        expect(r.code, r.stderr).toBe(0);
        // No object made twice: every create that reached the emulator and was answered made one object at most.
        const made = (await emu.requests())
          .filter(
            (q) =>
              isWrite(q) &&
              q.method === "POST" &&
              !q.path.includes("/validate") &&
              (q.status === 200 || q.status === 0),
          )
          .map((q) => `${q.path} ${JSON.stringify(q.body)}`);
        expect(
          made.filter((c, i) => made.indexOf(c) !== i),
          "a create made twice",
        ).toEqual([]);
        await expectConverged(emu, fleet);
      }, 60_000);
    }
  }
});
