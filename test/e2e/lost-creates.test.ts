// Issue 35: a create whose answer was lost, on every shape of list the real API answers (real-answers.md,
// "List answers": pages of a per_page smaller than the count, cursor pages on the rulesets list, and a list
// without paging, Logpush jobs). After the lost answer zoneform reads the list again to its end, reads each new
// object with the create's hints by its id (a list item is a summary: a rulesets list carries no rules, as the
// recorded answer test/fixtures/recorded/cft_zone_rulesets_list.json shows), and adopts it only when it equals
// what was sent; otherwise "may have been created" with its id, exit 4. The POST is never sent a second time,
// not even when nothing new appeared. The lost answer is played by the emulator (`after: true, reset: true`:
// the POST is carried out, its answer destroyed) or by a hostile proxy in front of it (the POST carried out, or
// not, or another object made in its place; then the connection destroyed). Each case asserts zoneform's exact
// requests, in order, from the emulator's request log or the proxy's.
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, writeConfig, type LoggedRequest } from "../helpers/cli.js";
import { useHostileProxy } from "../attacks/helpers.js";
import { recorded } from "../unit/recorded.js";

const emu = TestEmulator.perFile();
const hostile = useHostileProxy(emu);

const Z = ZONE.com;
const POLICIES = `zones/${Z}/page_shield/policies`;
const RULESETS = `zones/${Z}/rulesets`;
const JOBS = `zones/${Z}/logpush/jobs`;
const PHASE = "http_request_firewall_managed";
const ENTRYPOINT = `${RULESETS}/phases/${PHASE}/entrypoint`;
const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const DEST = "https://logs.example.com/ingest";

/** The emulator's log as `METHOD path?query` lines, relative to /client/v4/. */
const lines = (log: readonly LoggedRequest[]) =>
  log.map((r) => {
    const q = new URLSearchParams(r.query).toString();
    return `${r.method} ${r.path.replace(/^\/client\/v4\//, "")}${q ? `?${q}` : ""}`;
  });
/** What zoneform sent through the proxy, the same way. */
const proxied = () => hostile.proxy.log.map((r) => `${r.method} ${r.path}${r.query}`);
const shape = (body: Record<string, unknown>) => emu.admin("POST", "/list-shapes", body);
const mayHaveBeenCreated = (path: string, ids: string) =>
  `POST ${path}: the answer was lost (no answer: UND_ERR_SOCKET); it may have been created: no new object ` +
  `equals what was sent (new since the plan, with its hints: id ${ids}). None was adopted`;

async function apply(config: string, url = emu.url) {
  return runCli(emu, ["apply", "-c", config, "--auto-approve", "--api-url", url]);
}

async function planIsClean(config: string): Promise<void> {
  const plan = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"]);
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  expect(plan.stdout).toContain("No changes.");
}

const policy = (description: string, value = "script-src 'self'") => ({
  description,
  action: "log",
  expression: "true",
  value,
  enabled: true,
});
const checkoutConfig = () =>
  writeConfig(
    `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    page_shield:\n      prune: false\n      ` +
      `policies:\n        - { description: Checkout, action: log, expression: "true", value: "script-src 'self'" }\n`,
  );

describe("a list answered in numbered pages (Page Shield policies, 1 per page)", () => {
  async function seeded() {
    for (const d of ["Alpha", "Bravo"]) await emu.api("POST", POLICIES, policy(d));
    await shape({ path: POLICIES, per_page: 1 });
    return checkoutConfig();
  }

  it("the POST was carried out: every page read again, the new policy (page 3) read by id, equal, adopted", async () => {
    const config = await seeded();
    await emu.fault({ method: "POST", path: "page_shield/policies$", reset: true, after: true, count: 1 });
    await emu.clearRequests();
    const r = await apply(config);
    expect(r.code, r.stderr).toBe(0);
    const log = lines(await emu.requests());
    const id = /: adopted \(id ([0-9a-f]{32})\)/.exec(r.stderr)?.[1];
    expect(r.stderr).toContain(
      `POST ${POLICIES}: the answer was lost, but what it creates is there: adopted (id ${id})`,
    );
    expect(await emu.api("GET", `${POLICIES}/${id}`)).toMatchObject(policy("Checkout"));
    expect(log).toEqual([
      // The plan's read, then the read before the create.
      `GET ${POLICIES}`,
      `GET ${POLICIES}?page=2&per_page=1`,
      `GET ${POLICIES}`,
      `GET ${POLICIES}?page=2&per_page=1`,
      `POST ${POLICIES}`,
      // After the lost answer: the whole list again, then the one new policy with its description, by id.
      `GET ${POLICIES}`,
      `GET ${POLICIES}?page=2&per_page=1`,
      `GET ${POLICIES}?page=3&per_page=1`,
      `GET ${POLICIES}/${id}`,
    ]);
    await planIsClean(config);
  });

  it('another policy of that description appeared instead: "may have been created" with its id, exit 4, one POST', async () => {
    const config = await seeded();
    let other = "";
    hostile.proxy.spoil = async (req, res) => {
      if (req.method !== "POST") return false;
      other = (await emu.api<{ id: string }>("POST", POLICIES, policy("Checkout", "script-src *"))).id;
      res.destroy();
      return true;
    };
    const r = await apply(config, hostile.proxy.url);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(mayHaveBeenCreated(POLICIES, other));
    expect(r.stderr).not.toContain(": adopted");
    expect(proxied().filter((l) => !l.startsWith("GET "))).toEqual([`POST ${POLICIES}`]);
    expect(proxied().slice(-4)).toEqual([
      `GET ${POLICIES}`,
      `GET ${POLICIES}?page=2&per_page=1`,
      `GET ${POLICIES}?page=3&per_page=1`,
      `GET ${POLICIES}/${other}`,
    ]);
  });
});

describe("a list answered by cursor (the zone's rulesets, 2 per page: the new entry point on page 2)", () => {
  const owaspConfig = () =>
    writeConfig(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    waf:\n      ` +
        "owasp: { enabled: true, paranoia_level: 1, score_threshold: medium, action: block }\n",
    );
  /** zoneform's requests through the proxy up to its POST: the plan, Cloudflare's check, the read before it. */
  const beforePost = [
    `GET ${RULESETS}/${OWASP}`,
    `GET ${ENTRYPOINT}`,
    `POST ${RULESETS}?dry_run=true`,
    `GET ${RULESETS}`,
    `POST ${RULESETS}`,
  ];
  /** The POST's answer lost: `instead` plays what happened on the server. */
  function loseThePost(instead: (forward: () => Promise<unknown>) => Promise<void>) {
    hostile.proxy.spoil = async (req, res, forward) => {
      if (req.method !== "POST" || req.query.get("dry_run") === "true") return false;
      await instead(forward);
      res.destroy();
      return true;
    };
  }

  it("the POST was carried out: page 2 followed, the entry point read by id (the list has no rules), adopted", async () => {
    await shape({ path: RULESETS, per_page: 2, cursor: true });
    const config = await owaspConfig();
    loseThePost(async (forward) => {
      await forward();
    });
    const r = await apply(config, hostile.proxy.url);
    expect(r.code, r.stderr).toBe(0);
    const ep = await emu.api<{ id: string }>("GET", ENTRYPOINT);
    expect(r.stderr).toContain(
      `POST ${RULESETS}: the answer was lost, but what it creates is there: adopted (id ${ep.id})`,
    );
    const cursor = Buffer.from("offset:2").toString("base64url");
    expect(proxied()).toEqual([
      ...beforePost,
      `GET ${RULESETS}`,
      `GET ${RULESETS}?cursor=${cursor}`,
      `GET ${RULESETS}/${ep.id}`,
    ]);
    await planIsClean(config);
  });

  it('an entry point with other rules appeared instead: "may have been created" with its id, exit 4, one POST', async () => {
    await shape({ path: RULESETS, per_page: 2, cursor: true });
    const config = await owaspConfig();
    let other = "";
    loseThePost(async () => {
      const made = await emu.api<{ id: string }>("POST", RULESETS, {
        name: "made by hand",
        kind: "zone",
        phase: PHASE,
        rules: [{ action: "execute", expression: "true", action_parameters: { id: OWASP } }],
      });
      other = made.id;
    });
    const r = await apply(config, hostile.proxy.url);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(mayHaveBeenCreated(RULESETS, other));
    const cursor = Buffer.from("offset:2").toString("base64url");
    expect(proxied()).toEqual([
      ...beforePost,
      `GET ${RULESETS}`,
      `GET ${RULESETS}?cursor=${cursor}`,
      `GET ${RULESETS}/${other}`,
    ]);
  });

  it("the POST never reached the API: nothing new on any page, sent again once, then exit 4; the next apply makes it", async () => {
    await shape({ path: RULESETS, per_page: 2, cursor: true });
    const config = await owaspConfig();
    loseThePost(async () => {});
    const r = await apply(config, hostile.proxy.url);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(
      `POST ${RULESETS}: the answer was lost (no answer: UND_ERR_SOCKET); the whole list, read again, shows ` +
        "nothing was made: sent again",
    );
    expect(r.stderr).toContain(
      `POST ${RULESETS}: the answer was lost (no answer: UND_ERR_SOCKET); nothing new with its hints is in the ` +
        "list, after 2 sends: it was not sent again",
    );
    expect(r.stderr).toContain("(1 of them may have been written)");
    // The list holds the two managed rulesets only: one page, its cursor empty; read again before each decision.
    expect(proxied()).toEqual([...beforePost, `GET ${RULESETS}`, `POST ${RULESETS}`, `GET ${RULESETS}`]);
    hostile.proxy.reset();
    const again = await apply(config);
    expect(again.code, again.stderr).toBe(0);
    await planIsClean(config);
  });
});

describe("the rulesets list as the real API answered it (recorded: no result_info, no rules, `source`)", () => {
  it("a log-fields entry point created, its answer lost: the recorded list's six rulesets are no candidates, the new one is read by id and adopted", async () => {
    const rec = recorded("cft_zone_rulesets_list");
    await emu.admin("POST", "/recorded", rec);
    const zone = /zones\/([0-9a-f]{32})\//.exec(
      String((rec as unknown as { recorded_request: { url: string } }).recorded_request.url),
    )![1]!;
    const list = `zones/${zone}/rulesets`;
    const config = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${zone}\n    logs:\n      custom_fields:\n        request_headers: [x-request-id]\n`,
    );
    hostile.proxy.spoil = async (req, res, forward) => {
      if (req.method !== "POST" || req.query.get("dry_run") === "true") return false;
      await forward();
      res.destroy();
      return true;
    };
    const r = await apply(config, hostile.proxy.url);
    expect(r.code, r.stderr).toBe(0);
    const ep = await emu.api<{ id: string }>("GET", `${list}/phases/http_log_custom_fields/entrypoint`);
    expect(r.stderr).toContain(
      `POST ${list}: the answer was lost, but what it creates is there: adopted (id ${ep.id})`,
    );
    // The recorded list answers whole (no result_info): one read, then the one new ruleset of the phase by id.
    expect(proxied().slice(-5)).toEqual([
      `POST ${list}?dry_run=true`,
      `GET ${list}`,
      `POST ${list}`,
      `GET ${list}`,
      `GET ${list}/${ep.id}`,
    ]);
    expect((await emu.api<unknown[]>("GET", list)).length).toBe((rec.body.result as unknown[]).length + 1);
    await planIsClean(config);
  });
});

describe("the rules of an entry point (a list inside the object read, whole as read)", () => {
  it("a rule added to the entry point, its answer lost: the entry point read again, the rule equal, adopted", async () => {
    // The entry point exists with the Cloudflare Managed rule: OWASP is one more rule, POSTed to it.
    const ep = await emu.api<{ id: string }>("POST", RULESETS, {
      name: "Zone-level phase entry point",
      kind: "zone",
      phase: PHASE,
      rules: [{ action: "execute", expression: "true", action_parameters: { id: "efb7b8c949ac4650a09736fc376e9aee" } }],
    });
    const config = await writeConfig(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    waf:\n      ` +
        "owasp: { enabled: true, paranoia_level: 1, score_threshold: medium, action: block }\n",
    );
    const RULES = `${RULESETS}/${ep.id}/rules`;
    hostile.proxy.spoil = async (req, res, forward) => {
      if (req.method !== "POST" || req.query.get("dry_run") === "true") return false;
      await forward();
      res.destroy();
      return true;
    };
    const r = await apply(config, hostile.proxy.url);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`POST ${RULES}: the answer was lost, but what it creates is there: adopted (id `);
    // No read by id: a rule is whole in the entry point read (and the API has no GET of one rule).
    expect(proxied()).toEqual([
      `GET ${RULESETS}/${OWASP}`,
      `GET ${ENTRYPOINT}`,
      `POST ${RULES}?dry_run=true`,
      `GET ${ENTRYPOINT}`,
      `POST ${RULES}`,
      `GET ${ENTRYPOINT}`,
    ]);
    await planIsClean(config);
  });
});

describe("a list without paging (Logpush jobs)", () => {
  const jobConfig = () =>
    writeConfig(
      `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n    logs:\n      prune: false\n      ` +
        `logpush_jobs:\n        - { name: example.com, dataset: http_requests, destination_conf: "${DEST}" }\n`,
    );

  it("the POST was carried out: the list read again, the new job read by id, equal, adopted", async () => {
    const config = await jobConfig();
    await emu.fault({ method: "POST", path: "logpush/jobs$", reset: true, after: true, count: 1 });
    await emu.clearRequests();
    const r = await apply(config);
    expect(r.code, r.stderr).toBe(0);
    const log = lines(await emu.requests());
    const [job] = await emu.api<Array<{ id: number }>>("GET", JOBS);
    expect(r.stderr).toContain(
      `POST ${JOBS}: the answer was lost, but what it creates is there: adopted (id ${job!.id})`,
    );
    expect(log).toEqual([
      `GET ${JOBS}`,
      `POST zones/${Z}/logpush/validate/destination`,
      `GET ${JOBS}`,
      `POST ${JOBS}`,
      `GET ${JOBS}`,
      `GET ${JOBS}/${job!.id}`,
    ]);
    await planIsClean(config);
  });

  it('a job of that name and dataset with another destination appeared: "may have been created", exit 4', async () => {
    const config = await jobConfig();
    let other = "";
    hostile.proxy.spoil = async (req, res) => {
      if (req.method !== "POST" || !req.path.endsWith("/logpush/jobs")) return false;
      const made = await emu.api<{ id: number }>("POST", JOBS, {
        name: "example.com",
        dataset: "http_requests",
        destination_conf: `${DEST}/elsewhere`,
        enabled: true,
      });
      other = String(made.id);
      res.destroy();
      return true;
    };
    const r = await apply(config, hostile.proxy.url);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(mayHaveBeenCreated(JOBS, other));
    expect(proxied().filter((l) => l.startsWith("POST ") && !l.includes("/validate/"))).toEqual([`POST ${JOBS}`]);
    expect(proxied().slice(-2)).toEqual([`GET ${JOBS}`, `GET ${JOBS}/${other}`]);
  });
});
