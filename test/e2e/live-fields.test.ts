// Issue 28 end to end: the values and fields of Cloudflare's API of 2026 are stated, planned, applied
// and read back, and fields zoneform does not manage survive a write byte for byte. Facts relied on
// (the shared spec real-answers.md "Changes since the seed documents"): a content security rule's action
// may be add_reporting_directives; custom log fields have transformed_request_fields and
// raw_response_fields, and preserve_duplicates on response fields of both kinds; no recorded answer
// shows whether a Page Shield policy PUT merges (so it carries the whole policy); a Logpush PUT keeps
// what it does not carry.
import { describe, expect, it } from "vitest";
import { TestEmulator, ZONE, runCli, writeConfig, writesCheckedFirst } from "../helpers/cli.js";

const emu = TestEmulator.perFile();
const Z = ZONE.com;
const PHASE = "http_log_custom_fields";
const EP_PATH = `zones/${Z}/rulesets/phases/${PHASE}/entrypoint`;

const zoneYaml = (body: string) =>
  `version: 1\nzones:\n  - zone_id: ${Z}\n    name: example.com\n${body
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => `    ${l}`)
    .join("\n")}\n`;

async function converge(yaml: string, env: Record<string, string> = {}) {
  const config = await writeConfig(yaml);
  const plan1 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env });
  expect(plan1.code, plan1.stdout + plan1.stderr).toBe(2);
  await emu.clearRequests();
  const apply = await runCli(emu, ["apply", "-c", config, "--auto-approve"], { env });
  expect(apply.code, apply.stdout + apply.stderr).toBe(0);
  const writes = writesCheckedFirst(await emu.requests()).map((r) => ({
    call: `${r.method} ${r.path.replace(/^\/client\/v4\//, "")}`,
    body: r.body,
  }));
  const plan2 = await runCli(emu, ["plan", "-c", config, "--detailed-exitcode"], { env });
  expect(plan2.code, plan2.stdout + plan2.stderr).toBe(0);
  expect(plan2.stdout).toContain("No changes.");
  return { plan: plan1.stdout, writes };
}

interface Rule {
  id: string;
  version?: string;
  last_updated?: string;
  action_parameters: Record<string, unknown>;
  [k: string]: unknown;
}

describe("custom log fields of 2025", () => {
  const seeded = {
    action: "log_custom_field",
    expression: "true",
    description: "made in the dashboard",
    enabled: true,
    ref: "dash-fields",
    logging: { enabled: true },
    action_parameters: {
      request_fields: [{ name: "user-agent" }],
      transformed_request_fields: [{ name: "x-forwarded-for" }],
      response_fields: [{ name: "set-cookie", preserve_duplicates: true }],
      raw_response_fields: [{ name: "server", preserve_duplicates: false }],
      cookie_fields: [{ name: "__Session" }],
    },
  };
  const seed = () =>
    emu.api("POST", `zones/${Z}/rulesets`, {
      name: "Zone-level phase entry point",
      kind: "zone",
      phase: PHASE,
      rules: [seeded],
    });
  const liveRule = async () => await emu.api<{ id: string; rules: Rule[] }>("GET", EP_PATH);

  it(
    "a change of request_headers keeps the live transformed and raw lists and preserve_duplicates " + "byte for byte",
    async () => {
      await seed();
      const before = await liveRule();
      const { plan, writes } = await converge(
        zoneYaml(
          "logs:\n  custom_fields:\n    request_headers: [user-agent, cf-ray]\n    response_headers: " +
            "[set-cookie]\n    transformed_request_headers: [x-forwarded-for]\n    raw_response_headers: " +
            "[server]\n    cookies: [__Session]",
        ),
      );
      expect(plan).toContain("request headers +cf-ray");
      const rule = before.rules[0]!;
      const { id: _id, version: _v, last_updated: _l, ...writable } = rule;
      expect(writes).toEqual([
        {
          call: `PATCH zones/${Z}/rulesets/${before.id}/rules/${rule.id}`,
          body: {
            ...writable,
            action_parameters: {
              ...rule.action_parameters,
              request_fields: [{ name: "user-agent" }, { name: "cf-ray" }],
            },
          },
        },
      ]);
      const after = (await liveRule()).rules[0]!;
      const strip = ({ version: _a, last_updated: _b, ...r }: Rule) => ({
        ...r,
        action_parameters: { ...r.action_parameters, request_fields: undefined },
      });
      expect(JSON.stringify(strip(after))).toBe(JSON.stringify(strip(rule)));
    },
  );

  it("states preserve_duplicates on one raw response header: only that item changes", async () => {
    await seed();
    const before = (await liveRule()).rules[0]!;
    const { plan, writes } = await converge(
      zoneYaml(
        "logs:\n  custom_fields:\n    request_headers: [user-agent]\n    transformed_request_headers: " +
          "[x-forwarded-for]\n    response_headers: [set-cookie]\n    raw_response_headers: [{name: server, " +
          "preserve_duplicates: true}]\n    cookies: [__Session]",
      ),
    );
    expect(plan).toContain("keep duplicates of raw_response_headers.server");
    expect(writes).toHaveLength(1);
    const after = (await liveRule()).rules[0]!;
    expect(after.action_parameters).toEqual({
      ...before.action_parameters,
      raw_response_fields: [{ name: "server", preserve_duplicates: true }],
    });
  });

  it("creates a rule with the new lists, and export writes them back", async () => {
    const yaml = zoneYaml(
      "logs:\n  custom_fields:\n    request_headers: []\n    response_headers: []\n    cookies: []\n    " +
        "transformed_request_headers: [x-real-ip]\n    raw_response_headers: [{name: set-cookie, " +
        "preserve_duplicates: true}, server]",
    );
    const { writes } = await converge(yaml);
    expect(writes).toHaveLength(1);
    expect((writes[0]!.body as { rules: Rule[] }).rules[0]!.action_parameters).toEqual({
      transformed_request_fields: [{ name: "x-real-ip" }],
      raw_response_fields: [{ name: "set-cookie", preserve_duplicates: true }, { name: "server" }],
    });
    const exported = await runCli(emu, ["export", "--zone", Z, "--sections", "custom_fields"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain("transformed_request_headers: [x-real-ip]\n");
    expect(exported.stdout).toMatch(
      /raw_response_headers:\n\s+- name: set-cookie\n\s+preserve_duplicates: true\n\s+- server\n/,
    );
    // The exported file plans nothing.
    const replan = await runCli(emu, ["plan", "-c", await writeConfig(exported.stdout), "--detailed-exitcode"]);
    expect(replan.code, replan.stdout + replan.stderr).toBe(0);
  });
});

describe("the emulator's log_custom_field rules", () => {
  it("accepts the five lists, and preserve_duplicates only on response fields of both kinds, as a boolean", async () => {
    const post = (params: Record<string, unknown>) =>
      emu.call("POST", `zones/${Z}/rulesets`, {
        name: "x",
        kind: "zone",
        phase: PHASE,
        rules: [{ action: "log_custom_field", expression: "true", action_parameters: params }],
      });
    const bad = await post({
      request_fields: [{ name: "a", preserve_duplicates: true }],
      raw_response_fields: [{ name: "b", preserve_duplicates: "yes" }],
      other_fields: [],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toEqual([
      "/rules/0/action_parameters/request_fields/0/preserve_duplicates",
      "/rules/0/action_parameters/raw_response_fields/0/preserve_duplicates",
      "/rules/0/action_parameters/other_fields",
    ]);
    const ok = await post({
      transformed_request_fields: [{ name: "a" }],
      raw_response_fields: [{ name: "b", preserve_duplicates: true }],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });
});

describe("content security rules (Page Shield policies) of 2026", () => {
  const policy = (value: string) =>
    `page_shield:\n  policies:\n    - description: Reporting\n      action: add_reporting_directives\n      ` +
    `expression: http.host eq "example.com"\n      value: ${value}`;

  it(
    "creates a policy with action add_reporting_directives; a change PUTs the whole policy (the five fields " +
      "the API documents), never a field zoneform does not know",
    async () => {
      const created = await converge(zoneYaml(policy("script-src 'self'")));
      expect(created.writes).toEqual([
        {
          call: `POST zones/${Z}/page_shield/policies`,
          body: {
            description: "Reporting",
            action: "add_reporting_directives",
            expression: 'http.host eq "example.com"',
            value: "script-src 'self'",
            enabled: true,
          },
        },
      ]);
      // A field of the API to come, as the live policy holds it.
      const stored = emu.state().zones.find((z) => z.id === Z)!.policies[0]!;
      stored.future_field = { nested: [1, "two"] };
      const { writes } = await converge(zoneYaml(policy("script-src 'self' https://js.stripe.com")));
      expect(writes).toEqual([
        {
          call: `PUT zones/${Z}/page_shield/policies/${stored.id}`,
          body: {
            description: "Reporting",
            action: "add_reporting_directives",
            expression: 'http.host eq "example.com"',
            value: "script-src 'self' https://js.stripe.com",
            enabled: true,
          },
        },
      ]);
      // The emulator's PUT replaces the policy, as the real API may: what zoneform models is all kept.
      const after = await emu.api<Record<string, unknown>>("GET", `zones/${Z}/page_shield/policies/${stored.id}`);
      expect(after).toEqual({ id: stored.id, ...writes[0]!.body! });
    },
  );
});

describe("Logpush jobs keep what a PUT does not carry", () => {
  it("a change of enabled PUTs the fields the file manages; unknown live fields survive byte for byte", async () => {
    const job = await emu.api<{ id: number }>("POST", `zones/${Z}/logpush/jobs`, {
      name: "to-https",
      dataset: "http_requests",
      destination_conf: "https://logs.example.com/ingest",
      enabled: false,
      output_options: { field_names: ["RayID"], timestamp_format: "rfc3339" },
    });
    const stored = emu
      .state()
      .zones.find((z) => z.id === Z)!
      .logpush_jobs.find((j) => j.id === job.id)!;
    stored.future_field = { a: [1, 2] };
    const before = JSON.stringify({ ...stored, enabled: undefined });
    const { writes } = await converge(
      zoneYaml(
        "logs:\n  logpush_jobs:\n    - name: to-https\n      dataset: http_requests\n      " +
          "destination_conf: https://logs.example.com/ingest\n      enabled: true\n      output_options: " +
          "{field_names: [RayID], timestamp_format: rfc3339}",
      ),
    );
    expect(writes).toEqual([
      {
        call: `PUT zones/${Z}/logpush/jobs/${job.id}`,
        body: {
          name: "to-https",
          enabled: true,
          output_options: { field_names: ["RayID"], timestamp_format: "rfc3339" },
        },
      },
    ]);
    const after = emu
      .state()
      .zones.find((z) => z.id === Z)!
      .logpush_jobs.find((j) => j.id === job.id)!;
    expect(JSON.stringify({ ...after, enabled: undefined, last_complete: stored.last_complete })).toBe(before);
  });
});
