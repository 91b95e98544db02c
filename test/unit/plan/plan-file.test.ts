import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.js";
import type { Plan } from "../../../src/model/plan.js";
import { readPlanFile, serialisePlan } from "../../../src/plan/plan-file.js";

const Z = "0123456789abcdef0123456789abcdef";
const secret = { name: "SPLUNK_TOKEN", value: "splunk-secret-42" };
const plan: Plan = {
  format_version: 1,
  created_at: "2026-11-21T00:00:00.000Z",
  summary: { create: 1, update: 0, replace: 0, delete: 0 },
  zones: [
    {
      zone_id: Z,
      fingerprints: {},
      errors: [],
      warnings: [],
      changes: [
        {
          kind: "create",
          resource: "logpush_job",
          zone_id: Z,
          identity: "j",
          fields: [],
          operations: [{ method: "POST", path: `zones/${Z}/logpush/jobs`, body: { destination_conf: `https://h.example/?header_Authorization=Splunk%20${secret.value}` } }],
        },
      ],
    },
  ],
};

async function saved(): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "zoneform-planfile-")), "plan.json");
  await writeFile(path, serialisePlan(plan, [secret]));
  return path;
}

describe("saved plan files", () => {
  it("put the values of ${env:…} references back from the environment", async () => {
    const { plan: read, secrets } = await readPlanFile(await saved(), { SPLUNK_TOKEN: secret.value });
    expect(read.zones[0]!.changes[0]!.operations[0]!.body).toEqual(plan.zones[0]!.changes[0]!.operations[0]!.body);
    expect(secrets).toEqual([secret]);
  });
  it("refuse to load when a referenced variable is not set, naming it", async () => {
    const err = await readPlanFile(await saved(), {}).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("environment variable SPLUNK_TOKEN is not set");
  });
  it("refuse another format version and files that are not plans", async () => {
    const path = await saved();
    await writeFile(path, JSON.stringify({ ...plan, format_version: 2 }));
    await expect(readPlanFile(path, {})).rejects.toThrow(/format_version 2/);
    await writeFile(path, "not json");
    await expect(readPlanFile(path, {})).rejects.toThrow(/is not JSON/);
    await writeFile(path, JSON.stringify({ format_version: 1 }));
    await expect(readPlanFile(path, {})).rejects.toThrow(/is not a zoneform plan/);
  });
});
