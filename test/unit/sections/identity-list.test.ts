// The one identity rule of listed objects (shared/identity-list.ts), on plain items: ids identify,
// hints only match when they are unambiguous, and nothing in error is matched or left to delete.
import { describe, expect, it } from "vitest";
import { matchIdentities, type IdentityRule } from "../../../src/sections/shared/identity-list.js";

interface Want {
  id?: string;
  name: string;
  dataset: string;
}
interface Live {
  id: string;
  name: string;
  dataset: string;
}

const RULE: IdentityRule<Want, Live> = {
  what: "job",
  whats: "jobs",
  idOf: (l) => l.id,
  pinOf: (d) => d.id,
  hint: { ofDesired: (d) => `${d.name}/${d.dataset}`, ofLive: (l) => `${l.name}/${l.dataset}` },
  describeDesired: (d) => `job ${d.name}/${d.dataset}`,
  describeLive: (l) => `id ${l.id} (${l.name}/${l.dataset})`,
};
const want = (name: string, dataset = "http", id?: string): Want => ({
  name,
  dataset,
  ...(id !== undefined ? { id } : {}),
});
const live = (id: string, name: string, dataset = "http"): Live => ({ id, name, dataset });
/** What each entry became: its live id, or "+" (create). */
const outcome = (r: ReturnType<typeof matchIdentities<Want, Live>>) =>
  r.matches.map((m) => `${m.want.name}/${m.want.dataset}=${m.live ? m.live.id : "+"}`);

describe("matchIdentities", () => {
  it("matches by hints when they are unique, and leaves the rest unmatched", () => {
    const r = matchIdentities([want("a"), want("b")], [live("1", "a"), live("2", "c")], RULE);
    expect(outcome(r)).toEqual(["a/http=1", "b/http=+"]);
    expect(r.unmatched.map((l) => l.id)).toEqual(["2"]);
    expect(r.errors).toEqual([]);
  });

  it("tells jobs of one name apart by their hint (name and dataset)", () => {
    const r = matchIdentities(
      [want("x", "dns"), want("x", "http")],
      [live("1", "x", "http"), live("2", "x", "dns")],
      RULE,
    );
    expect(outcome(r)).toEqual(["x/dns=2", "x/http=1"]);
    expect(r.unmatched).toEqual([]);
  });

  it(
    "stops on a hint more than one live object has: the entry is left out, its candidates are held, not " + "unmatched",
    () => {
      const r = matchIdentities([want("a"), want("b")], [live("1", "a"), live("2", "a"), live("3", "z")], RULE);
      expect(outcome(r)).toEqual(["b/http=+"]);
      expect(r.unmatched.map((l) => l.id)).toEqual(["3"]);
      expect(r.errors).toEqual([
        "job a/http matches 2 live jobs: id 1 (a/http); id 2 (a/http). zoneform does not guess which one the " +
          "file means: pin the one the file means with `id: <id>` under the entry (e.g. `id: 1`), and declare or " +
          "delete the others; nothing in this zone is changed.",
      ]);
    },
  );

  it("takes pins first; unpinned entries match among what the pins left", () => {
    const lives = [live("1", "a"), live("2", "a")];
    expect(outcome(matchIdentities([want("a", "http", "2"), want("a")], lives, RULE))).toEqual([
      "a/http=2",
      "a/http=1",
    ]);
    // Order in the file does not matter.
    expect(outcome(matchIdentities([want("a"), want("a", "http", "2")], lives, RULE))).toEqual([
      "a/http=1",
      "a/http=2",
    ]);
    const pinnedOnly = matchIdentities([want("a", "http", "2")], lives, RULE);
    expect(pinnedOnly.unmatched.map((l) => l.id)).toEqual(["1"]);
  });

  it("stops on a pin that is not live, naming the live objects of the same hints, and holds them", () => {
    const r = matchIdentities([want("a", "http", "9")], [live("1", "a"), live("2", "b")], RULE);
    expect(r.matches).toEqual([]);
    expect(r.errors).toEqual([
      expect.stringMatching(
        /^job a\/http pins id 9, which is not live \(live jobs with the same hints: id 1 \(a\/http\)\)/,
      ),
    ]);
    expect(r.unmatched.map((l) => l.id)).toEqual(["2"]);
    expect(
      matchIdentities([want("a", "http", "1"), want("b", "http", "1")], [live("1", "a")], RULE).errors[0],
    ).toContain("which another entry pins too");
  });

  it("never takes an object of the same name but another dataset: the file names it by both", () => {
    const r = matchIdentities([want("a", "dns")], [live("1", "a", "http")], RULE);
    expect(outcome(r)).toEqual(["a/dns=+"]);
    expect(r.unmatched.map((l) => l.id)).toEqual(["1"]);
  });

  it("reads an id the list names twice once (a warning), and stops on two different contents under one id", () => {
    const once = matchIdentities([want("a")], [live("1", "a"), live("1", "a")], RULE);
    expect(outcome(once)).toEqual(["a/http=1"]);
    expect(once.unmatched).toEqual([]);
    expect(once.live).toHaveLength(1);
    expect(once.warnings).toEqual(["the list of jobs named id 1 twice; it was read once"]);
    const twoContents = matchIdentities([], [live("1", "a"), live("1", "b")], RULE);
    expect(twoContents.errors[0]).toContain("named id 1 twice with different contents");
    // Never unmatched twice: one delete at most.
    expect(matchIdentities([], [live("1", "a"), live("1", "a")], RULE).unmatched.map((l) => l.id)).toEqual(["1"]);
  });
  it("a rule's claim may refuse an entry its one candidate: the entry stops, the candidate is held", () => {
    const claiming: IdentityRule<Want, Live> = {
      ...RULE,
      claim: (_w, l) => (l.id === "1" ? "it is another team's" : undefined),
      unit: "account",
    };
    const r = matchIdentities([want("a"), want("b")], [live("1", "a"), live("2", "b")], claiming);
    expect(outcome(r)).toEqual(["b/http=2"]);
    expect(r.unmatched).toEqual([]);
    expect(r.errors).toEqual([
      "job a/http matches id 1 (a/http) by its hints only, and it is another team's: zoneform does not take it " +
        "over on its hints. To take it over, pin it: write `id: 1` under the entry; to create a new one instead, " +
        "rename the entry. Nothing in this account is changed.",
    ]);
    // A pin is never refused.
    expect(outcome(matchIdentities([want("a", "http", "1")], [live("1", "a")], claiming))).toEqual(["a/http=1"]);
  });
});
