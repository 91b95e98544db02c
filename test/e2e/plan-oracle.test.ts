// Issue 45, point 1: a saved plan was an offline oracle for `${env:…}` values. Its fingerprints hashed the
// live objects read, a Logpush job's destination_conf with its secret in it, and everything else of the
// object could be rebuilt from the plan's own desired block: a 6-digit header token fell to a plain hash
// of each guess. Now a fingerprint is of the object in template syntax (the value as its reference) with
// credentials hidden: the attack below finds nothing, and the fingerprint is the same whatever the value.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeLiveJob } from "../../src/sections/logpush_jobs/live.js";
import { fingerprint } from "../../src/plan/fingerprint.js";
import type { Plan } from "../../src/model/index.js";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const DEST = (token: string) => `https://logs.example.com/in?header_X-Token=${token}`;
const CONFIG = `version: 1
zones:
  - zone_id: ${ZONE.com}
    name: example.com
    logs:
      logpush_jobs:
        - name: http
          dataset: http_requests
          destination_conf: "https://logs.example.com/in?header_X-Token=\${env:TOK}"
`;

/** A saved plan of the zone whose live job holds `token`, made with TOK set to it (no change to make). */
async function savedPlan(token: string): Promise<{ plan: Plan; raw: Record<string, unknown> }> {
  await emu.reset();
  const raw = await emu.api<Record<string, unknown>>("POST", `zones/${ZONE.com}/logpush/jobs`, {
    name: "http",
    dataset: "http_requests",
    destination_conf: DEST(token),
    enabled: true,
  });
  const file = join(await tempDir(), "plan.json");
  const r = await runCli(emu, ["plan", "-c", await writeConfig(CONFIG), "--out", file, "--detailed-exitcode"], {
    env: { TOK: token },
  });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return { plan: JSON.parse(await readFile(file, "utf8")) as Plan, raw };
}

describe("a saved plan as an oracle for a secret", () => {
  it("lets no guess be tested at a hash's speed: the old attack finds nothing, even the right guess", async () => {
    const { plan, raw } = await savedPlan("123456");
    const fingerprints = Object.values(plan.zones[0]!.fingerprints);
    expect(fingerprints.length).toBeGreaterThan(0);
    // The attacker's rebuild of the object the plan read, for each guess: the fingerprint the plan used to hold.
    const rebuilt = (guess: string) => {
      const { id: _id, ...rest } = normalizeLiveJob({ ...raw, destination_conf: DEST(guess) });
      return fingerprint(rest);
    };
    // The control: the right guess gives the object's plain fingerprint, which is what a plan used to hold.
    expect(rebuilt("123456")).not.toBe(rebuilt("123457"));
    const hits: string[] = [];
    for (const guess of ["123456", ...Array.from({ length: 20_000 }, (_, n) => String(n).padStart(6, "0"))])
      if (fingerprints.includes(rebuilt(guess))) hits.push(guess);
    expect(hits).toEqual([]);
    // What is left binds the value by the slow KDF alone, with parameters apply checks.
    expect(plan.inputs).toMatchObject({ names: ["TOK"], kdf: { name: "scrypt", n: 16384, r: 10, p: 1 } });
    expect(JSON.stringify(plan)).not.toContain("123456");
  });

  it("holds the same fingerprints whatever the value: they tell nothing of it", async () => {
    const one = await savedPlan("123456");
    const other = await savedPlan("987654");
    expect(other.plan.zones[0]!.fingerprints).toEqual(one.plan.zones[0]!.fingerprints);
    // The salt comes from the desired state and the digest from the file form: neither depends on the value.
    expect(other.plan.inputs!.salt).toBe(one.plan.inputs!.salt);
    expect(other.plan.inputs!.hash).not.toBe(one.plan.inputs!.hash);
  });
});
