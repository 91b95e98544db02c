// Lists in the shapes the real API may answer (the shared spec real-answers.md, "List answers": pages of
// a per_page smaller than the count, cursor pages, an item repeated in a glitch, an empty page before
// the last; "Numeric ids": Logpush job ids are integers, beyond 2^53 JSON.parse rounds them), played
// by the emulator's list shapes (docs/emulator.md), end to end with the exact writes from its log.
import { describe, expect, it } from "vitest";
import { JSON_SOURCE_TEXT } from "../../src/cloudflare/errors.js";
import { TOKEN, TestEmulator, ZONE, runCli, writeConfig } from "../helpers/cli.js";

const emu = TestEmulator.perFile();

const Z = ZONE.com;
const POLICIES = `zones/${Z}/page_shield/policies`;
const JOBS = `zones/${Z}/logpush/jobs`;

const policy = (description: string) => ({
  description,
  action: "log",
  expression: 'http.host eq "example.com"',
  value: "script-src 'self'",
  enabled: true,
});
const policyYaml = (description: string) =>
  `      - description: ${description}\n        action: log\n        expression: http.host eq ` +
  `"example.com"\n        value: script-src 'self'\n        enabled: true\n`;
const policiesConfig = (descriptions: string[]) =>
  writeConfig(
    `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    page_shield:\n      ` +
      `policies:\n${descriptions.map(policyYaml).join("")}`,
  );

const shape = (body: Record<string, unknown>) => emu.admin("POST", "/list-shapes", body);

async function converge(config: string, env: Record<string, string> = {}) {
  const plan1 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env });
  expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
  await emu.clearRequests();
  const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve"], { env });
  expect(apply.code, apply.stdout + apply.stderr).toBe(0);
  const writes = await emu.calls({ writesOnly: true });
  const plan2 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env });
  expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
  expect(plan2.stdout).toContain("No changes.");
  return { plan1, apply, writes, plan2 };
}

describe("a policies list answered in pages", () => {
  it("reads every page: the policies on later pages are found, and only the new one is created", async () => {
    for (const d of ["Alpha", "Bravo", "Charlie"]) await emu.api("POST", POLICIES, policy(d));
    await shape({ path: POLICIES, per_page: 1 });
    const config = await policiesConfig(["Alpha", "Bravo", "Charlie", "Delta"]);
    const { plan1, writes } = await converge(config);
    expect(plan1.stdout).toContain("Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.");
    expect(writes).toEqual([`POST ${POLICIES}`]);
    await emu.clearRequests();
    await runCli(emu, ["plan", "-c", config]);
    const lists = (await emu.requests()).filter((r) => r.path.endsWith("/policies"));
    // The first call as the API documents it (no page parameters), then the pages its totals announce.
    expect(lists.map((r) => r.query)).toEqual([
      {},
      { page: "2", per_page: "1" },
      { page: "3", per_page: "1" },
      { page: "4", per_page: "1" },
    ]);
  });
});

describe("an item answered twice", () => {
  it("with the same content: read once with a warning on stderr, never written to", async () => {
    for (const d of ["Alpha", "Bravo"]) await emu.api("POST", POLICIES, policy(d));
    const [first] = await emu.api<Array<{ id: string }>>("GET", POLICIES);
    await shape({ path: POLICIES, per_page: 2, duplicate: 0 });
    const { writes, plan2 } = await converge(await policiesConfig(["Alpha", "Bravo", "Charlie"]));
    expect(writes).toEqual([`POST ${POLICIES}`]);
    expect(plan2.stderr).toContain(
      `warning: GET ${POLICIES}: the list holds id "${first!.id}" twice on page 1 with the same content (a ` +
        `paging overlap); read once`,
    );
  });

  it("with other content: the zone stops with a message naming the id, exit 1, nothing written", async () => {
    for (const d of ["Alpha", "Bravo"]) await emu.api("POST", POLICIES, policy(d));
    const [first] = await emu.api<Array<{ id: string }>>("GET", POLICIES);
    await shape({ path: POLICIES, duplicate: 0, conflicting: true });
    await emu.clearRequests();
    const apply = await runCli(emu, ["apply", "-c", await policiesConfig(["Alpha"]), "--auto-approve"]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      `GET ${POLICIES}: the list holds id "${first!.id}" twice on page 1 with different content`,
    );
    expect(apply.stderr).not.toMatch(/\n\s+at \S/);
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});

describe("announced totals far larger than the list", () => {
  it("total_pages 1e10: a clear error in seconds after one list call, no write", async () => {
    await emu.api("POST", POLICIES, policy("Alpha"));
    await shape({ path: POLICIES, per_page: 1, total_pages: 1e10 });
    await emu.clearRequests();
    const started = Date.now();
    const apply = await runCli(emu, ["apply", "-c", await policiesConfig(["Bravo"]), "--auto-approve"]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      `GET ${POLICIES}: the list announces 10000000000 pages, more than the 20000 zoneform reads at most ` +
        `(--max-list-pages)`,
    );
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
    expect((await emu.requests()).filter((r) => r.path.endsWith("/policies"))).toHaveLength(1);
  });

  it("--max-list-items and ZONEFORM_MAX_LIST_ITEMS lower the item cap", async () => {
    for (const d of ["Alpha", "Bravo", "Charlie"]) await emu.api("POST", POLICIES, policy(d));
    await shape({ path: POLICIES, per_page: 1 });
    await emu.clearRequests();
    const config = await policiesConfig(["Alpha"]);
    const flag = await runCli(emu, ["plan", "-c", config, "--max-list-items", "2"]);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain("announces 3 items, more than the 2 zoneform reads at most (--max-list-items)");
    const env = await runCli(emu, ["plan", "-c", config], { env: { ZONEFORM_MAX_LIST_ITEMS: "2" } });
    expect(env.code).toBe(1);
    const bad = await runCli(emu, ["plan", "-c", config], { env: { ZONEFORM_MAX_LIST_ITEMS: "lots" } });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('ZONEFORM_MAX_LIST_ITEMS must be a whole number of at least 1, got "lots"');
    expect(await emu.calls({ writesOnly: true })).toEqual([]);
  });
});

describe("audit and an empty page before the last", () => {
  it("asks the page again, then fails with a clear error and exit 1, never 'clean'", async () => {
    await emu.admin("POST", "/inventory", {
      zone_id: ZONE.net,
      scripts: 30,
      connections: 0,
      cookies: 0,
      malicious_ratio: 0,
    });
    const SCRIPTS = `zones/${ZONE.net}/page_shield/scripts`;
    await shape({ path: SCRIPTS, per_page: 10, empty_page: 2 });
    const r = await runCli(emu, ["audit", "--zone", ZONE.net]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `GET ${SCRIPTS}: page 2 came back empty twice although the list announced more \\(total_pages 3, ` +
          `total_count \\d+, 10 read so far\\); the list could not be read whole`,
      ),
    );
    expect(r.stdout).not.toContain("No findings");
    // Page 2 twice; page 3 may have been asked ahead (audit reads a few pages ahead).
    const pages = (await emu.requests()).filter((q) => q.path.endsWith("/scripts")).map((q) => q.query.page);
    expect(pages.filter((p) => p !== "3")).toEqual(["1", "2", "2"]);
  });

  it("takes the page when the second answer holds it", async () => {
    await emu.admin("POST", "/inventory", {
      zone_id: ZONE.net,
      scripts: 30,
      connections: 0,
      cookies: 0,
      malicious_ratio: 0,
    });
    const SCRIPTS = `zones/${ZONE.net}/page_shield/scripts`;
    const plain = await runCli(emu, ["audit", "--zone", ZONE.net, "--fail-on", "none"]);
    await shape({ path: SCRIPTS, per_page: 10, empty_page: 2, empty_times: 1 });
    const r = await runCli(emu, ["audit", "--zone", ZONE.net, "--fail-on", "none"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(plain.stdout);
    expect(r.stdout).toMatch(/Scripts: [1-9]\d* read/);
  });
});

describe("cursor pages", () => {
  it("a policies list answered by cursor is followed to its end", async () => {
    for (const d of ["Alpha", "Bravo", "Charlie"]) await emu.api("POST", POLICIES, policy(d));
    await shape({ path: POLICIES, per_page: 2, cursor: true });
    const { writes } = await converge(await policiesConfig(["Alpha", "Bravo", "Charlie", "Delta"]));
    expect(writes).toEqual([`POST ${POLICIES}`]);
  });
});

describe("a Logpush job id beyond 2^53", () => {
  const R2 =
    "r2://logs/http/{DATE}?account-id=0123456789abcdef0123456789abcdef&access-key-id=${env:R2_KEY_ID}&secret-access-key=${env:R2_SECRET}";
  const env = { R2_KEY_ID: "r2-key-id-0001", R2_SECRET: "r2-secret-0001" };
  const filled = R2.replace("${env:R2_KEY_ID}", env.R2_KEY_ID).replace("${env:R2_SECRET}", env.R2_SECRET);
  it(
    JSON_SOURCE_TEXT
      ? "is deleted at its exact id, not at the id JSON.parse would round it to (another job's)"
      : "is refused on this Node.js before any write",
    async () => {
      // Five jobs with consecutive ids: one of them, m, is 3 modulo 4, so 2^53 + m rounds to 2^53 + m + 1,
      // the id of the next job. That job is the one a rounded DELETE would hit.
      const made: Array<{ id: number; name: string }> = [];
      for (let i = 0; i < 5; i++)
        made.push(
          await emu.api<{ id: number; name: string }>("POST", JOBS, {
            name: `job-${i}`,
            dataset: "http_requests",
            destination_conf: filled,
            enabled: true,
          }),
        );
      const drop = made.find((j, i) => j.id % 4 === 3 && made[i + 1]?.id === j.id + 1)!;
      const big = (id: number) => (2n ** 53n + BigInt(id)).toString();
      expect(Number(big(drop.id))).toBe(Number(big(drop.id + 1)));
      await shape({ path: JOBS, big_ids: true });
      // The emulator writes the ids as raw JSON numbers with every digit.
      const raw = await fetch(`${emu.url}/${JOBS}`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) =>
        r.text(),
      );
      expect(raw).toContain(`"id":${big(drop.id)},`);
      const kept = made.filter((j) => j !== drop);
      const config = await writeConfig(
        `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    logs:\n      logpush_jobs:\n` +
          kept
            .map(
              (j) =>
                `        - name: ${j.name}\n          dataset: http_requests\n          destination_conf: "${R2}"\n`,
            )
            .join(""),
      );
      if (JSON_SOURCE_TEXT) {
        const { writes } = await converge(config, env);
        expect(writes).toEqual([`DELETE ${JOBS}/${big(drop.id)}`]);
        expect((await emu.api<Array<{ name: string }>>("GET", JOBS)).map((j) => j.name)).toEqual(
          kept.map((j) => j.name),
        );
      } else {
        await emu.clearRequests();
        const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve"], { env });
        expect(apply.code).toBe(1);
        expect(apply.stderr).toContain(
          `GET ${JOBS}: the answer holds id ${made
            .map((j) => big(j.id))
            .filter((d) => !Number.isSafeInteger(Number(d)))
            .join(", ")}, beyond the integers this Node.js (${process.version}) reads exactly (2^53)`,
        );
        expect(await emu.calls({ writesOnly: true })).toEqual([]);
      }
    },
  );
});
