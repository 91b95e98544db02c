// The library's apply() owns safety as `zoneform apply` does (src/engine/apply.ts): a plan edited
// after it was made (in memory or as saved JSON, what it does or what it shows), a plan not made from
// the configuration given (`expectDesired`), a plan made before the live zone changed, and a plan over
// safety.max_deletes are refused with nothing written; the library and the CLI make the same plan
// (same digest) for the same file and zone, and read a saved plan's digest and counts as values; the
// library exports no way to run operations that were not planned.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as library from "../../src/index.js";
import {
  StalePlanError,
  UnsafePlanError,
  apply,
  createClient,
  loadConfig,
  plan,
  parsePlanFile,
  planCounts,
  planDigest,
  readPlanFile,
  renderPlan,
  type Plan,
} from "../../src/index.js";
import { TOKEN, TestEmulator, ZONE, runCli, tempDir, writeConfig } from "../helpers/cli.js";
import { CHECKOUT } from "../helpers/configs.js";

const emu = TestEmulator.perFile();

const { CONFIG, ENV } = CHECKOUT;
const WRITES = [`PUT zones/${ZONE.com}/page_shield`, `POST zones/${ZONE.com}/page_shield/policies`];

/** A client, the desired state of `config` and the library's plan of it; the request log cleared after. */
async function planned(config = CONFIG) {
  const client = createClient({ baseUrl: emu.url, auth: { token: TOKEN } });
  const { desired } = await loadConfig(await writeConfig(config), { env: ENV });
  const p = await plan(desired, { client });
  await emu.clearRequests();
  return { client, desired, p };
}

/** The error apply() rejects with (undefined when it resolved), and the writes it sent. */
async function refused(p: Plan, client: library.CloudflareClient, opts: Partial<library.ApplyRunOptions> = {}) {
  let error: unknown;
  try {
    await apply(p, { client, env: ENV, ...opts });
  } catch (err) {
    error = err;
  }
  return { error, writes: await emu.calls({ writesOnly: true }) };
}

describe("the library's apply()", () => {
  it("applies the plan plan() made (re-read and verified), then plans no change", async () => {
    const { client, desired, p } = await planned();
    try {
      const report = await apply(p, { client, env: ENV });
      expect(report.done).toHaveLength(2);
      expect(await emu.calls({ writesOnly: true })).toEqual(WRITES);
      // The zones were read again before the writes: the first calls are reads.
      expect((await emu.calls())[0]).toMatch(/^GET /);
      expect((await plan(desired, { client })).summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
    } finally {
      await client.close();
    }
  });

  it("refuses a plan whose operation or body was edited in memory, writing nothing", async () => {
    const { client, p } = await planned();
    try {
      const first = p.zones[0]!.changes[0]!.operations[0]!;
      const was = first.path;
      first.path = `zones/${ZONE.com}/page_shield/policies`;
      const op = await refused(p, client);
      expect(op.error).toBeInstanceOf(StalePlanError);
      expect((op.error as Error).message).toContain("the plan given to apply was changed after zoneform made it");
      first.path = was;
      (p.zones[0]!.changes[1]!.operations[0]!.body as { value: string }).value = "script-src *";
      const body = await refused(p, client);
      expect(body.error).toBeInstanceOf(StalePlanError);
      expect([...op.writes, ...body.writes]).toEqual([]);
      // Put back as it was made, it is the plan again.
      (p.zones[0]!.changes[1]!.operations[0]!.body as { value: string }).value =
        "script-src 'self' https://js.${env:SUFFIX}.example";
      expect((await refused(p, client)).writes).toEqual(WRITES);
    } finally {
      await client.close();
    }
  });

  it("refuses a saved plan whose digest, body or operation was edited, writing nothing", async () => {
    const { client, desired, p } = await planned();
    try {
      const saved = JSON.parse(renderPlan(p, desired, "json")) as Plan & { digest: string };
      expect(JSON.stringify(saved)).toContain("${env:SUFFIX}");
      const digest = await refused({ ...saved, digest: `sha256:${"0".repeat(64)}` }, client);
      expect(digest.error).toBeInstanceOf(library.ZoneformError);
      expect((digest.error as Error).message).toContain("the plan given to apply was changed after it was made");
      const bodyEdited = structuredClone(saved);
      (bodyEdited.zones[0]!.changes[1]!.operations[0]!.body as { value: string }).value = "script-src *";
      const body = await refused(bodyEdited, client);
      expect((body.error as Error).message).toContain("was changed after it was made");
      const { digest: _d, ...undigested } = bodyEdited;
      // The body alone sends what the plan does not show; with its field, only the re-plan tells.
      const unshown = await refused(undigested as Plan, client);
      expect(unshown.error).toBeInstanceOf(StalePlanError);
      expect((unshown.error as Error).message).toContain(
        "the plan given to apply shows what its operations do not do; nothing was read or written",
      );
      undigested.zones[0]!.changes[1]!.fields.find((f) => f.field === "value")!.after = "script-src *";
      const replanned = await refused(undigested as Plan, client);
      expect(replanned.error).toBeInstanceOf(StalePlanError);
      expect((replanned.error as Error).message).toContain("the body of POST zones/");
      const reviewed = await refused(saved, client, { expectDigest: `sha256:${"1".repeat(64)}` });
      expect((reviewed.error as Error).message).toContain(
        `is ${saved.digest}, not the reviewed sha256:${"1".repeat(64)}`,
      );
      const otherValue = await refused(saved, client, { env: { SUFFIX: "other" } });
      expect(otherValue.error).toBeInstanceOf(StalePlanError);
      expect((otherValue.error as Error).message).toContain(
        "${env:SUFFIX} has another value than when the plan was made",
      );
      expect([digest, body, unshown, replanned, reviewed, otherValue].flatMap((r) => r.writes)).toEqual([]);
      // Untouched, with the digest reviewed, it is applied.
      const ok = await refused(saved, client, { expectDigest: saved.digest });
      expect(ok.error).toBeUndefined();
      expect(ok.writes).toEqual(WRITES);
    } finally {
      await client.close();
    }
  });

  it("refuses a plan made before the live zone changed, writing nothing", async () => {
    const { client, desired, p } = await planned();
    const saved = JSON.parse(renderPlan(p, desired, "json")) as Plan;
    try {
      await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
        description: "someone else's",
        action: "log",
        expression: "true",
        value: "script-src 'self'",
        enabled: true,
      });
      await emu.clearRequests();
      for (const stale of [p, saved]) {
        const r = await refused(stale, client);
        expect(r.error).toBeInstanceOf(StalePlanError);
        expect((r.error as Error).message).toContain("the saved plan is stale; nothing was written");
        expect((r.error as Error).message).toContain("added since the plan was made");
        expect(r.writes).toEqual([]);
      }
    } finally {
      await client.close();
    }
  });

  it("refuses a plan over safety.max_deletes unless forced", async () => {
    await emu.api("POST", `zones/${ZONE.com}/page_shield/policies`, {
      description: "old",
      action: "log",
      expression: "true",
      value: "script-src 'self'",
      enabled: true,
    });
    const { client, desired, p } = await planned();
    try {
      expect(p.summary.delete).toBe(1);
      const r = await refused(p, client);
      expect(r.error).toBeInstanceOf(UnsafePlanError);
      expect((r.error as Error).message).toContain("too many deletes, 1 is over 0 (safety.max_deletes)");
      expect(r.writes).toEqual([]);
      const forced = await refused(p, client, { force: true });
      expect(forced.error).toBeUndefined();
      expect(forced.writes.filter((w) => w.startsWith("DELETE"))).toHaveLength(1);
      expect((await plan(desired, { client })).summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
    } finally {
      await client.close();
    }
  });

  it(
    "makes the plan the CLI makes: the same digest for the same file and zone, rendered the same, digest " +
      "line included",
    async () => {
      const config = CONFIG.replaceAll("${env:SUFFIX}", "stripe");
      const cli = await runCli(emu, ["plan", "-c", await writeConfig(config)]);
      expect(cli.code, cli.stderr).toBe(0);
      const shown = /^Plan digest: (sha256:[0-9a-f]{64})$/m.exec(cli.stdout)?.[1];
      expect(shown).toBeDefined();
      const { client, desired, p } = await planned(config);
      try {
        expect((JSON.parse(renderPlan(p, desired, "json")) as { digest: string }).digest).toBe(shown);
        // One renderer: the library's text is the CLI's (no terminal, so no width limit), digest line included.
        expect(renderPlan(p, desired, "text")).toBe(cli.stdout);
        expect(renderPlan(p, desired, "markdown")).toContain(`\nPlan digest: \`${shown}\`\n`);
      } finally {
        await client.close();
      }
    },
  );

  it("refuses a plan not made from the desired state it is expected to be made from, before any read", async () => {
    const { client, desired, p } = await planned();
    try {
      const saved = JSON.parse(renderPlan(p, desired, "json")) as Plan;
      const other = (
        await loadConfig(await writeConfig(CONFIG.replace("enabled: true", "enabled: false")), { env: ENV })
      ).desired;
      for (const given of [p, saved]) {
        const r = await refused(given, client, { expectDesired: other });
        expect(r.error).toBeInstanceOf(StalePlanError);
        expect((r.error as Error).message).toContain(
          "was not made from the configuration given; nothing was read or written:\n" +
            `  example.com (${ZONE.com}): page_shield differs`,
        );
        expect(await emu.calls()).toEqual([]);
      }
      const ok = await refused(saved, client, { expectDesired: desired });
      expect(ok.error).toBeUndefined();
      expect(ok.writes).toEqual(WRITES);
    } finally {
      await client.close();
    }
  });

  it("reads a saved plan's digest and counts as values, checked as `zoneform show` checks the file", async () => {
    const { client, desired, p } = await planned();
    try {
      const cli = await runCli(
        emu,
        ["plan", "-c", await writeConfig(CONFIG), "--out", join(await tempDir(), "p.json")],
        {
          env: ENV,
        },
      );
      const printed = /^Plan digest: (sha256:[0-9a-f]{64})$/m.exec(cli.stdout)?.[1];
      await emu.clearRequests();
      const file = join(await tempDir(), "plan.json");
      await writeFile(file, renderPlan(p, desired, "json"));
      const saved = await readPlanFile(file);
      // The digest of the plan plan() made, of the saved plan, and the one the CLI printed: one digest.
      expect(planDigest(p)).toBe(printed);
      expect(planDigest(saved)).toBe(printed);
      expect(planCounts(saved)).toEqual({ create: 1, update: 1, replace: 0, delete: 0 });
      // Counted from the changes: a plan whose counts say otherwise is refused when read.
      await writeFile(file, JSON.stringify({ ...saved, summary: { create: 0, update: 0, replace: 0, delete: 0 } }));
      await expect(readPlanFile(file)).rejects.toThrow(/was changed after it was made/);
      const forged = { ...saved, summary: { create: 0, update: 0, replace: 0, delete: 0 }, digest: undefined };
      await writeFile(file, JSON.stringify({ ...forged, digest: planDigest(forged as Plan) }));
      await expect(readPlanFile(file)).rejects.toThrow(/shows what its operations do not do/);
      // A downloaded artifact's text, checked alike.
      await expect(parsePlanFile(renderPlan(p, desired, "json"), "plan.json")).resolves.toMatchObject({
        digest: printed,
      });
      await expect(parsePlanFile(await readFile(file, "utf8"), "plan.json")).rejects.toThrow(
        "the plan file plan.json shows what its operations do not do",
      );
      expect(await emu.calls()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("is the only way the library writes: no export runs operations of the caller's", () => {
    expect(Object.keys(library).sort()).toEqual(
      [
        "ApiError",
        "ApplyError",
        "ConfigError",
        "DEFAULT_API_URL",
        "EXIT",
        "NetworkError",
        "RunStoppedError",
        "StalePlanError",
        "UnsafePlanError",
        "ZoneformError",
        "apply",
        "audit",
        "createClient",
        "drift",
        "exportZones",
        "loadConfig",
        "parseConfigText",
        "plan",
        "planCounts",
        "planDigest",
        "planFromLive",
        "parsePlanFile",
        "readPlanFile",
        "readLive",
        "renderPlan",
        "resolveCredentials",
      ].sort(),
    );
  });
});
