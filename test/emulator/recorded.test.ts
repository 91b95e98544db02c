// Recorded real answers (test/fixtures/recorded/, with their provenance) loaded as emulator state:
// every file loads, and a GET of the recorded path then answers the recorded items, deep-equal. Only
// envelope fields the emulator cannot know (result_info, errors: null, messages: null) are ignored.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { defaultState, normalizeState, stateFromRecorded, type RecordedAnswer } from "../../src/emulator/index.js";
import { useEmulator } from "../helpers/cli.js";

const RECORDED_DIR = new URL("../fixtures/recorded/", import.meta.url);
/** The zone the cf-terraforming cassettes were recorded against. */
const CFT_ZONE = "0da42c8d2132a9ddaf714f9e7c920711";

const names = readdirSync(RECORDED_DIR)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -5))
  .sort();
const load = (name: string): RecordedAnswer => JSON.parse(readFileSync(new URL(`${name}.json`, RECORDED_DIR), "utf8"));

/** The path (and query) to GET: the recorded request's, or the zone's jobs list for a fixture without one. */
function pathOf(rec: RecordedAnswer): string {
  if (!rec.recorded_request) return `zones/${CFT_ZONE}/logpush/jobs`;
  const url = new URL(rec.recorded_request.url);
  return `${url.pathname.replace(/^\/client\/v4\//, "")}${url.search}`;
}

const emu = useEmulator();

describe("every recorded answer loads and is answered back", () => {
  test("there are recorded answers to load", () => {
    expect(names.length).toBeGreaterThanOrEqual(10);
  });

  test.each(names)("%s", async (name) => {
    const rec = load(name);
    // An empty emulator, so a list holds exactly what the recording put there.
    expect((await emu().callAdmin("PUT", "state", { zones: [] })).status).toBe(200);
    const query = rec.recorded_request ? "" : `?zone_id=${CFT_ZONE}`;
    const loaded = await emu().callAdmin("POST", `recorded${query}`, rec);
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    const answer = await emu().call("GET", pathOf(rec));
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    expect(answer.body.result).toEqual(rec.body.result);
  });
});

describe("stateFromRecorded", () => {
  test("is pure: the given state is left as it was", () => {
    const state = defaultState();
    const before = JSON.stringify(state);
    const next = stateFromRecorded(state, load("cft_custom_hostnames_v5"));
    expect(JSON.stringify(state)).toBe(before);
    expect(next.zones.find((z) => z.id === CFT_ZONE)?.custom_hostnames).toHaveLength(1);
  });

  test("keeps the managed entry point's execute rule without an id as it is", () => {
    const state = stateFromRecorded(normalizeState({ zones: [] }), load("cft_managed_entrypoint"));
    const ruleset = state.zones[0]!.rulesets[0]!;
    expect(ruleset).toMatchObject({
      id: "4c971a697dd249939460f4520dcd7184",
      kind: "zone",
      source: "firewall_managed",
      phase: "http_request_firewall_managed",
    });
    expect(ruleset.rules[0]).not.toHaveProperty("id");
    expect(ruleset.rules[0]).not.toHaveProperty("ref");
    expect(ruleset.rules[0]!.action_parameters).toMatchObject({
      id: "efb7b8c949ac4650a09736fc376e9aee",
      version: "latest",
    });
  });

  test("the rulesets list and the entry point load in either order and both answer as recorded", async () => {
    const list = load("cft_zone_rulesets_list");
    const entry = load("cft_managed_entrypoint");
    for (const order of [
      [list, entry],
      [entry, list],
    ]) {
      await emu().callAdmin("PUT", "state", { zones: [] });
      for (const rec of order) expect((await emu().callAdmin("POST", "recorded", rec)).status).toBe(200);
      expect((await emu().call("GET", pathOf(list))).body.result).toEqual(list.body.result);
      expect((await emu().call("GET", pathOf(entry))).body.result).toEqual(entry.body.result);
      // The entry point is found by its phase too, and managed rulesets listed in the zone stay read-only.
      expect(
        (await emu().call("GET", `zones/${CFT_ZONE}/rulesets/phases/http_request_firewall_managed/entrypoint`)).body
          .result.id,
      ).toBe((entry.body.result as { id: string }).id);
      expect(
        (await emu().call("PUT", `zones/${CFT_ZONE}/rulesets/a6905ff86d3844cebc1a88dd80c659e7`, { rules: [] })).status,
      ).toBe(403);
    }
  });

  test("keeps the seed's zones beside recorded ones, and stores an account's jobs on the account", () => {
    const state = stateFromRecorded(
      stateFromRecorded(defaultState(), load("cft_zones_list")),
      load("cft_logpush_account_v5"),
    );
    expect(state.zones).toHaveLength(4 + 3);
    expect(state.zones.find((z) => z.id === "d3d821f17e8a0f09b58be826091540db")).toMatchObject({
      name: "api.cloudflarecn.net",
      plan: "enterprise",
    });
    expect(
      state.accounts?.find((a) => a.id === "f037e56e89293a057740de681ac9abbe")?.logpush_jobs.map((j) => j.id),
    ).toEqual([235658, 234884]);
    expect(state.next_job_id).toBe(235659);
  });

  test("jobs created after a recorded list get ids above the loaded ones", async () => {
    await emu().callAdmin("POST", `recorded?zone_id=${CFT_ZONE}`, load("cfgo_logpush_list"));
    const created = await emu().call("POST", `zones/${CFT_ZONE}/logpush/jobs`, {
      dataset: "http_requests",
      destination_conf: "https://logs.example.com/x",
    });
    expect(created.body.result.id).toBe(2);
  });

  test("the admin API refuses what it cannot place", async () => {
    const noRequest = await emu().callAdmin("POST", "recorded", load("cfgo_logpush_list"));
    expect(noRequest.status).toBe(400);
    expect(noRequest.body.error).toMatch(/zone_id/);
    const failed = await emu().callAdmin("POST", "recorded", { ...load("cft_page_shield_policies"), status: 403 });
    expect(failed.status).toBe(400);
    const unknown = await emu().callAdmin("POST", "recorded", {
      ...load("cft_page_shield_policies"),
      recorded_request: { method: "GET", url: "https://api.cloudflare.com/client/v4/user" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/no loader/);
  });
});
