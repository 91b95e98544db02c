// Issue 25, identity on real lists, end to end against the emulator: a live policy or job is its id;
// a description or a name only hints at it and may repeat (the real API allows both: Cloudflare's own
// Logpush example makes two jobs named example.com, one for http_requests and one for
// spectrum_events). Each case asserts the exact writes from the emulator's request log, and goes
// plan → apply → plan with no changes where it applies. A lost create answer is played by the
// emulator's `after: true, reset: true` fault, or by a hostile proxy that makes a second object at
// the moment of the POST.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { useHostileProxy } from "../attacks/helpers.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);

const Z = ZONE.com;
const POLICIES = `zones/${Z}/page_shield/policies`;
const JOBS = `zones/${Z}/logpush/jobs`;
const DEST = "https://logs.example.com/ingest";

const policy = (description: string, value: string) => ({
  description,
  action: "log",
  expression: 'http.host eq "example.com"',
  value,
  enabled: true,
});
const seedPolicy = (description: string, value: string) =>
  emu.api<{ id: string }>("POST", POLICIES, policy(description, value));
const seedJob = (name: string, dataset: string) =>
  emu.api<{ id: number }>("POST", JOBS, { name, dataset, destination_conf: DEST, enabled: true });

const policyYaml = (value: string, id?: string) =>
  `        - ${id ? `id: ${id}\n          ` : ""}description: Checkout\n          action: log\n          ` +
  `expression: http.host eq "example.com"\n          value: "${value}"\n`;
const policiesConfig = (entries: string, prune = true) =>
  writeConfig(
    `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    ` +
      `page_shield:\n${prune ? "" : "      prune: false\n"}      policies:\n${entries}`,
  );
const jobYaml = (dataset: string) =>
  `        - name: example.com\n          dataset: ${dataset}\n          destination_conf: "${DEST}"\n`;
const jobsConfig = (entries: string, prune: boolean) =>
  writeConfig(
    `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    ` +
      `logs:\n${prune ? "" : "      prune: false\n"}      logpush_jobs:\n${entries}`,
  );

/** Writes of the last run, as `METHOD path` (checks that only validate left out). */
async function writes(): Promise<string[]> {
  return (await emu.requests())
    .filter((r) => r.method !== "GET" && !r.path.includes("/validate"))
    .map((r) => `${r.method} ${r.path.replace("/client/v4/", "")}`);
}

/** plan (exit `planned`), apply, plan: no changes. Returns the first plan and the apply's writes. */
async function converge(config: string, planned: 0 | 2, url = emu.url) {
  const plan1 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode", "--api-url", url]);
  expect(plan1.code, plan1.stdout + plan1.stderr).toBe(planned);
  await emu.clearRequests();
  const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve", "--api-url", url]);
  expect(apply.code, apply.stdout + apply.stderr).toBe(0);
  const made = await writes();
  const plan2 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode", "--api-url", url]);
  expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
  expect(plan2.stdout).toContain("No changes.");
  return { plan1, apply, writes: made };
}

describe("Logpush jobs that share a name (Cloudflare's example.com pair)", () => {
  it("prune: false and a file naming one of them: no DELETE, no write at all", async () => {
    await seedJob("example.com", "http_requests");
    await seedJob("example.com", "spectrum_events");
    const { writes: made } = await converge(await jobsConfig(jobYaml("http_requests"), false), 0);
    expect(made).toEqual([]);
    expect(await emu.api<unknown[]>("GET", JOBS)).toHaveLength(2);
  });

  it("a file declaring both is accepted and plans nothing; with prune on, nothing is deleted either", async () => {
    await seedJob("example.com", "http_requests");
    await seedJob("example.com", "spectrum_events");
    const both = jobYaml("http_requests") + jobYaml("spectrum_events");
    const validate = await runCli(undefined, ["validate", "-c", await jobsConfig(both, true)]);
    expect(validate.code, validate.stderr).toBe(0);
    const { writes: made } = await converge(await jobsConfig(both, true), 0);
    expect(made).toEqual([]);
  });

  it(
    "two jobs with one name AND dataset: the zone stops with both ids and how to pin, 0 writes; a pin " + "picks one",
    async () => {
      const a = await seedJob("example.com", "http_requests");
      const b = await seedJob("example.com", "http_requests");
      const config = await jobsConfig(
        jobYaml("http_requests").replace("destination_conf", "enabled: false\n          destination_conf"),
        false,
      );
      await emu.clearRequests();
      const plan = await runCli(emu, ["plan", "-c", config]);
      expect(plan.code).toBe(1);
      expect(plan.stderr).toContain(
        `matches 2 live Logpush jobs: id ${a.id} (name "example.com", dataset http_requests); id ${b.id} ` +
          `(name "example.com", dataset http_requests)`,
      );
      expect(plan.stderr).toContain("`id: <id>` under the entry");
      const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve"]);
      expect(apply.code).toBe(1);
      expect(await writes()).toEqual([]);

      const pinned = await jobsConfig(
        `        - id: ${b.id}\n` +
          jobYaml("http_requests")
            .replace("        - name", "          name")
            .replace("destination_conf", "enabled: false\n          destination_conf"),
        false,
      );
      const { writes: made } = await converge(pinned, 2);
      expect(made).toEqual([`PUT ${JOBS}/${b.id}`]);
    },
  );
});

describe("Page Shield policies that share a description", () => {
  it("an unpinned entry stops the zone with the candidates listed, whatever prune says: 0 writes", async () => {
    const p1 = await seedPolicy("Checkout", "script-src 'self'");
    const p2 = await seedPolicy("Checkout", "script-src 'none'");
    for (const prune of [true, false]) {
      const config = await policiesConfig(policyYaml("script-src 'self' https://js.stripe.com"), prune);
      await emu.clearRequests();
      const plan = await runCli(emu, ["plan", "-c", config]);
      expect(plan.code).toBe(1);
      expect(plan.stderr).toContain('Page Shield policy "Checkout" matches 2 live Page Shield policies');
      for (const id of [p1.id, p2.id]) expect(plan.stderr).toContain(`id ${id} (description "Checkout", action log)`);
      expect(plan.stderr).toContain("pin the one the file means with `id: <id>` under the entry");
      const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve"]);
      expect(apply.code).toBe(1);
      expect(await writes()).toEqual([]);
    }
  });

  it("with a pinned id only the pinned one is updated; with prune: false the other stays", async () => {
    await seedPolicy("Checkout", "script-src 'self'");
    const p2 = await seedPolicy("Checkout", "script-src 'none'");
    const config = await policiesConfig(policyYaml("script-src 'none' https://js.stripe.com", p2.id), false);
    const { writes: made, plan1 } = await converge(config, 2);
    expect(plan1.stdout).toContain(`~ page_shield_policy "Checkout" (id ${p2.id})`);
    expect(made).toEqual([`PUT ${POLICIES}/${p2.id}`]);
    const live = await emu.api<Array<{ id: string; value: string }>>("GET", POLICIES);
    expect(live.map((p) => p.value).sort()).toEqual(["script-src 'none' https://js.stripe.com", "script-src 'self'"]);
  });

  it("a pinned id that is not live stops the zone and names the policies of that description", async () => {
    const p1 = await seedPolicy("Checkout", "script-src 'self'");
    await emu.clearRequests();
    const plan = await runCli(emu, [
      "plan",
      "-c",
      await policiesConfig(policyYaml("script-src 'self'", "0123456789abcdef0123456789abcdef")),
    ]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      `pins id 0123456789abcdef0123456789abcdef, which is not live (live Page Shield policies with the same ` +
        `hints: id ${p1.id}`,
    );
    expect(await writes()).toEqual([]);
  });
});

describe("export of zones whose hints repeat", () => {
  it(
    "writes every object, with an id: pin where a description or a name and dataset repeats; plan after " +
      "export is empty",
    async () => {
      const p1 = await seedPolicy("Checkout", "script-src 'self'");
      const p2 = await seedPolicy("Checkout", "script-src 'none'");
      await seedPolicy("Reports", "default-src 'self'");
      const j1 = await seedJob("example.com", "http_requests");
      const j2 = await seedJob("example.com", "http_requests");
      await seedJob("example.com", "spectrum_events");
      const out = join(await tempDir(), "zoneform.yaml");
      const exp = await runCli(emu, ["export", "--zone", Z, "--sections", "page_shield,logpush", "--out", out]);
      expect(exp.code, exp.stderr).toBe(0);
      const zone = parse(await readFile(out, "utf8")).zones[0];
      const policies = zone.page_shield.policies as Array<Record<string, unknown>>;
      expect(policies.map((p) => [p.id, p.description, p.value]).sort()).toEqual(
        [
          [p1.id, "Checkout", "script-src 'self'"],
          [p2.id, "Checkout", "script-src 'none'"],
          [undefined, "Reports", "default-src 'self'"],
        ].sort(),
      );
      expect(zone.page_shield).not.toHaveProperty("prune");
      const jobs = zone.logs.logpush_jobs as Array<Record<string, unknown>>;
      expect(jobs.map((j) => [j.id, j.name, j.dataset])).toEqual([
        [j1.id, "example.com", "http_requests"],
        [j2.id, "example.com", "http_requests"],
        [undefined, "example.com", "spectrum_events"],
      ]);
      await emu.clearRequests();
      const plan = await runCli(emu, ["plan", "-c", out, "--detailed-exitcode"]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect(plan.stdout).toContain("No changes.");
      expect(await writes()).toEqual([]);
    },
  );
});

describe("a create whose answer was lost", () => {
  const sent = "script-src 'self' https://js.stripe.com";

  it("an older policy of the same description is never adopted: the new one, equal to what was sent, is", async () => {
    const old = await seedPolicy("Checkout", "script-src 'self'");
    const config = await policiesConfig(policyYaml("script-src 'self'", old.id) + policyYaml(sent));
    await emu.admin("POST", "/faults", {
      method: "POST",
      path: "page_shield/policies$",
      reset: true,
      after: true,
      count: 1,
    });
    const { apply, writes: made } = await converge(config, 2);
    expect(made).toEqual([`POST ${POLICIES}`]);
    const live = await emu.api<Array<{ id: string; value: string }>>("GET", POLICIES);
    expect(live).toHaveLength(2);
    const created = live.find((p) => p.id !== old.id)!;
    expect(created.value).toBe(sent);
    expect(apply.stderr).toContain(
      `POST ${POLICIES}: the answer was lost, but what it creates is there: adopted (id ${created.id})`,
    );
  });

  it(
    "a Logpush job (filter and output options) next to an older job of the same name and dataset: the new " +
      "one is adopted",
    async () => {
      const old = await seedJob("example.com", "http_requests");
      const entry =
        jobYaml("http_requests") +
        "          filter: { where: { key: ClientRequestHost, operator: eq, value: example.com } }\n          " +
        "output_options: { field_names: [RayID, EdgeStartTimestamp], timestamp_format: rfc3339 }\n";
      const config = await jobsConfig(
        `        - id: ${old.id}\n${jobYaml("http_requests").replace("        - name", "          name")}${entry}`,
        false,
      );
      await emu.admin("POST", "/faults", { method: "POST", path: "logpush/jobs$", reset: true, after: true, count: 1 });
      const { apply, writes: made } = await converge(config, 2);
      expect(made).toEqual([`POST ${JOBS}`]);
      const live = await emu.api<Array<{ id: number }>>("GET", JOBS);
      const created = live.find((j) => j.id !== old.id)!;
      expect(live).toHaveLength(2);
      expect(apply.stderr).toContain(
        `POST ${JOBS}: the answer was lost, but what it creates is there: adopted (id ${created.id})`,
      );
    },
  );

  /** A "Stale" policy the plan deletes after the create, so that a stop is seen to write nothing more. */
  async function lostWith(extra: (body: Record<string, unknown>) => Promise<void>) {
    const stale = await seedPolicy("Stale", "script-src 'none'");
    const config = await policiesConfig(policyYaml(sent));
    // zoneform's POST never reaches the API: `extra` plays what appeared meanwhile, and the answer is lost.
    hostile.proxy.spoil = async (req, res) => {
      if (req.method !== "POST" || !req.path.endsWith("page_shield/policies")) return false;
      await extra(policy("Checkout", sent));
      res.destroy();
      return true;
    };
    const plan = await runCli(emu, ["plan", "-c", config, "--api-url", hostile.proxy.url]);
    expect(plan.stdout).toContain(`- page_shield_policy "Stale" (id ${stale.id})`);
    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve", "--api-url", hostile.proxy.url]);
    return { apply, stale };
  }

  it(
    'two new policies equal to what was sent: "may have been created" with both ids, exit 4, nothing ' +
      "adopted and no further write",
    async () => {
      const { apply, stale } = await lostWith(async (body) => {
        await emu.api("POST", POLICIES, body);
        await emu.api("POST", POLICIES, body);
      });
      expect(apply.code, apply.stdout + apply.stderr).toBe(4);
      const live = await emu.api<Array<{ id: string; description: string }>>("GET", POLICIES);
      const made = live.filter((p) => p.description === "Checkout").map((p) => p.id);
      expect(made).toHaveLength(2);
      expect(apply.stderr).toContain("it may have been created: 2 new objects equal what was sent");
      for (const id of made) expect(apply.stderr).toContain(id);
      expect(apply.stderr).toContain("(1 of them may have been written)");
      // The two POSTs are the test's own; zoneform's never reached the API, and the delete was not attempted.
      expect(await writes()).toEqual([`POST ${POLICIES}`, `POST ${POLICIES}`]);
      expect(live.map((p) => p.id)).toContain(stale.id);
      expect(apply.stderr).toContain('not done:    example.com: - page_shield_policy "Stale"');
    },
  );

  it(
    'a new policy of that description that differs from what was sent: "may have been created", exit 4, ' +
      "not adopted",
    async () => {
      const { apply } = await lostWith(async (body) => {
        await emu.api("POST", POLICIES, { ...body, value: "script-src *" });
      });
      expect(apply.code, apply.stdout + apply.stderr).toBe(4);
      const other = (await emu.api<Array<{ id: string; value: string }>>("GET", POLICIES)).find(
        (p) => p.value === "script-src *",
      )!;
      expect(apply.stderr).toContain(
        `it may have been created: no new object equals what was sent (new since the plan, with its hints: id ` +
          `${other.id})`,
      );
      expect(apply.stderr).not.toContain(": adopted");
      expect(apply.stderr).toContain("None was adopted and nothing more is written to this zone");
      expect(await writes()).toEqual([`POST ${POLICIES}`]);
    },
  );
});
