import { mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/index.js";
import { assertSamePlan, desiredFromPlan } from "../../../src/engine/verify.js";
import { ConfigError, StalePlanError } from "../../../src/errors.js";
import type { Plan } from "../../../src/model/plan.js";
import { planDigest } from "../../../src/plan/digest.js";
import { readPlanFile, writePlanFile } from "../../../src/engine/plan-store.js";
import { serialisePlan } from "../../../src/plan/plan-file.js";
import { planForDisplay, planForFile } from "../../../src/plan/secrets.js";

const Z = "0123456789abcdef0123456789abcdef";
const OTHER = "fedcba9876543210fedcba9876543210";
const ENV = { SPLUNK_TOKEN: "splunk-secret-42", FLAG: "true" };
const { desired } = parseConfigText(
  `version: 1
safety: { max_deletes: 1 }
zones:
  - zone_id: ${Z}
    page_shield:
      enabled: true
      policies:
        - { description: "Checkout \${env:FLAG}", action: log, expression: "true", value: "script-src 'self'" }
    logs:
      logpush_jobs:
        - { name: j, dataset: http_requests, destination_conf: "https://h.example/?header_Authorization=Splunk%20\${env:SPLUNK_TOKEN}" }
`,
  "z.yaml",
  ENV,
);

// As the planner makes it: the body carries the reference, never the value.
const body = { destination_conf: "https://h.example/?header_Authorization=Splunk%20${env:SPLUNK_TOKEN}" };
const plan: Plan = {
  format_version: 5,
  created_at: "2026-11-21T00:00:00.000Z",
  safety: { max_deletes: 1 },
  summary: { create: 1, update: 1, replace: 0, delete: 0 },
  zones: [
    {
      zone_id: Z,
      fingerprints: { "page_shield_settings/settings": "0123456789abcdef" },
      errors: [],
      warnings: [],
      desired: desired.zones[0]!.declared,
      changes: [
        {
          kind: "update",
          resource: "page_shield_settings",
          zone_id: Z,
          identity: "settings",
          fields: [{ field: "enabled", before: false, after: true }],
          operations: [{ method: "PUT", path: `zones/${Z}/page_shield`, body: { enabled: true } }],
        },
        {
          kind: "create",
          resource: "logpush_job",
          zone_id: Z,
          identity: "j",
          fields: [],
          operations: [{ method: "POST", path: `zones/${Z}/logpush/jobs`, body }],
        },
      ],
    },
  ],
};

async function saved(p: Plan = plan): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "zoneform-planfile-")), "plan.json");
  await writeFile(path, serialisePlan(p, desired));
  return path;
}

describe("saved plan files", () => {
  it("hold the desired state as written and references, never the secret values, with their digest", async () => {
    const text = serialisePlan(plan, desired);
    expect(text).not.toContain(ENV.SPLUNK_TOKEN);
    expect(text).toContain("${env:SPLUNK_TOKEN}");
    const read = await readPlanFile(await saved());
    expect(read.zones[0]!.desired).toMatchObject({
      page_shield: { policies: [{ description: "Checkout ${env:FLAG}" }] },
    });
    expect(read.digest).toBe(planDigest(read));
  });

  it("are written 0600, even over an existing wider file (with force)", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "zoneform-planfile-")), "plan.json");
    await writeFile(path, "old", { mode: 0o644 });
    await writePlanFile(path, plan, desired, { force: true });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, "utf8")).format_version).toBe(5);
  });

  it("refuse to replace an existing file without force, leaving it and no temporary file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "zoneform-planfile-"));
    const path = join(dir, "plan.json");
    await writeFile(path, "old", { mode: 0o644 });
    await expect(writePlanFile(path, plan, desired, { label: "--out plan.json" })).rejects.toThrow(
      "--out plan.json: the file exists; pass --force to overwrite it",
    );
    expect(await readFile(path, "utf8")).toBe("old");
    expect(await readdir(dir)).toEqual(["plan.json"]);
    const fresh = join(dir, "new.json");
    await writePlanFile(fresh, plan, desired);
    expect((await stat(fresh)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(["new.json", "plan.json"]);
  });

  it("carry a desired state that loads like a file, needing its variables", async () => {
    const read = await readPlanFile(await saved());
    const again = await desiredFromPlan(read, "plan.json", ENV);
    expect(again.zones[0]!.logs!.logpush_jobs![0]!.destination_conf).toBe(body.destination_conf);
    expect(again.safety).toEqual({ max_deletes: 1 });
    const err = await desiredFromPlan(read, "plan.json", {}).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.message).toContain("environment variable SPLUNK_TOKEN is not set");
  });

  it("refuse another format version, files that are not plans, and operations aimed at another zone", async () => {
    const path = await saved();
    await writeFile(path, JSON.stringify({ ...plan, format_version: 1 }));
    await expect(readPlanFile(path)).rejects.toThrow(/format_version 1; this zoneform reads format 5/);
    // Format 2's digest did not cover what `show` displays, format 3 bound each value apart, format 4 held
    // values: made again.
    for (const old of [2, 3, 4]) {
      await writeFile(path, JSON.stringify({ ...plan, format_version: old }));
      await expect(readPlanFile(path)).rejects.toThrow(
        new RegExp(`format_version ${old}; this zoneform reads format 5\\. Make the plan again with this version\\.`),
      );
    }
    await writeFile(path, "not json");
    await expect(readPlanFile(path)).rejects.toThrow(/is not JSON/);
    // A file read by mistake (the environment, a credential) is never quoted in the message.
    await writeFile(path, "SECRET_X=hunter2-secret\u0000HOME=/root");
    const quoted = await readPlanFile(path).then(
      () => "",
      (e: Error) => e.message,
    );
    expect(quoted).toMatch(/is not JSON/);
    expect(quoted).not.toContain("hunter2");
    await writeFile(path, JSON.stringify({ format_version: 5 }));
    await expect(readPlanFile(path)).rejects.toThrow(/is not a zoneform plan/);
    const astray = structuredClone(plan);
    astray.zones[0]!.changes[0]!.operations[0]!.path = `zones/${OTHER}/page_shield`;
    await writeFile(path, serialisePlan(astray, desired));
    await expect(readPlanFile(path)).rejects.toThrow(
      `do not address the zone they belong to (zone ${Z}: PUT zones/${OTHER}/page_shield)`,
    );
  });

  it("apply only when planned again to the same operations: an edited body is refused", () => {
    const same = planForFile(plan, desired);
    expect(() => assertSamePlan(same, planForFile(plan, desired))).not.toThrow();
    const edited = structuredClone(same);
    (edited.zones[0]!.changes[1]!.operations[0]!.body as Record<string, unknown>).destination_conf =
      "https://h.example/?header_Authorization=${env:CLOUDFLARE_API_TOKEN}";
    expect(() => assertSamePlan(edited, same)).toThrow(StalePlanError);
    expect(() => assertSamePlan(edited, same)).toThrow(
      /logpush_job "j": the body of POST .* differs from what zoneform plans/,
    );
    const extra = structuredClone(same);
    extra.zones[0]!.changes.push({
      kind: "delete",
      resource: "page_shield_policy",
      zone_id: Z,
      identity: "x",
      fields: [],
      operations: [{ method: "DELETE", path: `zones/${Z}/page_shield/policies/abc` }],
    });
    expect(() => assertSamePlan(extra, same)).toThrow(
      /has delete page_shield_policy "x" that zoneform does not plan now/,
    );
    const stale = structuredClone(same);
    stale.zones[0]!.fingerprints["page_shield_settings/settings"] = "ffffffffffffffff";
    expect(() => assertSamePlan(stale, same)).toThrow(
      /stale; nothing was written:\n {2}.*page_shield_settings\/settings changed since the plan was made/,
    );
  });

  it("hide a short env value only where a whole string came from it, never inside other text", () => {
    const live = structuredClone(plan);
    // A live string that is the short value whole is hidden; inside other text it is left.
    live.zones[0]!.warnings = ["true", "it is true"];
    expect(planForDisplay(live, desired).zones[0]!.warnings).toEqual(["(sensitive)", "it is true"]);
    const shown = JSON.stringify(planForDisplay(plan, desired));
    // FLAG=true: `enabled: false → true` stays readable; the policy description is the template with the reference
    // hidden.
    expect(shown).toContain('"after":true');
    expect(shown).not.toContain(ENV.SPLUNK_TOKEN);
    const withDescription = structuredClone(plan);
    withDescription.zones[0]!.changes[0]!.identity = "Checkout ${env:FLAG}";
    expect(JSON.stringify(planForDisplay(withDescription, desired))).toContain('"identity":"Checkout (sensitive)"');
    expect(JSON.stringify(planForFile(withDescription, desired))).toContain('"identity":"Checkout ${env:FLAG}"');
  });
});
