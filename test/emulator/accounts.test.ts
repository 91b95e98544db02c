// The emulator's accounts: POST /__emulator/accounts (an account, its own token and rate limit, its
// zones), account-owned tokens refused on another account's objects, the account's token check, the request log naming each
// call's token, and account-level Logpush (jobs, datasets and fields, ownership, validation).
import { describe, expect, test } from "vitest";
import { ownershipToken } from "../../src/emulator/areas/logpush_jobs/ownership.js";
import { useEmulator, ZONE } from "../helpers/cli.js";

const emu = useEmulator();
const A = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a";
const B = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b";
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

async function seed(limit: { requests?: number; seconds?: number } = {}) {
  const a = await emu().admin<{ zones: Array<{ id: string; name: string }> }>("POST", "accounts", {
    account_id: A,
    token: "tok-a",
    token_name: "token-a",
    ...limit,
    zones: 1,
    domain: "a.test",
  });
  const b = await emu().admin<{ zones: Array<{ id: string }> }>("POST", "accounts", {
    account_id: B,
    token: "tok-b",
    zones: 1,
  });
  return { a, b };
}

describe("accounts", () => {
  test("POST accounts makes the account, its token and its zones; nonsense and repeats are refused", async () => {
    const { a, b } = await seed();
    expect(a.zones).toEqual([{ name: "zone-1.a.test", id: expect.stringMatching(/^[0-9a-f]{32}$/) }]);
    expect(b.zones[0]!.id).toBe((await emu().api<{ id: string }>("GET", `zones/${b.zones[0]!.id}`)).id);
    expect((await emu().callAdmin("POST", "accounts", { account_id: A })).status).toBe(409);
    const bad = await emu().callAdmin("POST", "accounts", { account_id: "nope", requests: 0, colour: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("account_id must be an account id");
    expect(bad.body.error).toContain('unknown field "colour"');
    const half = await emu().callAdmin("POST", "accounts", { account_id: "0c".repeat(16), requests: 5 });
    expect(half.body.error).toContain("requests and seconds go together");
  });

  test("an account-owned token reaches its own account and zones only (403 / 9109 elsewhere)", async () => {
    const { a, b } = await seed();
    expect((await emu().call("GET", `zones/${a.zones[0]!.id}/logpush/jobs`, undefined, bearer("tok-a"))).status).toBe(
      200,
    );
    const other = await emu().call("GET", `zones/${b.zones[0]!.id}/logpush/jobs`, undefined, bearer("tok-a"));
    expect(other.status).toBe(403);
    expect(other.body.errors).toEqual([{ code: 9109, message: "Unauthorized to access requested resource" }]);
    expect((await emu().call("GET", `accounts/${B}/logpush/jobs`, undefined, bearer("tok-a"))).status).toBe(403);
    // The seed's zones belong to the seed's account.
    expect((await emu().call("GET", `zones/${ZONE.com}/page_shield`, undefined, bearer("tok-b"))).status).toBe(403);
    // The default token is a user's: every account.
    expect((await emu().call("GET", `accounts/${B}/logpush/jobs`)).status).toBe(200);
    const log = await emu().requests();
    expect(log.map((r) => r.credential)).toEqual([
      "token-a",
      "token-a",
      "token-a",
      expect.stringMatching(/^token /),
      expect.stringMatching(/^token /),
    ]);
    expect(JSON.stringify(log)).not.toContain("tok-a");
  });

  test("an account's token check answers its own tokens; another account's 403 / 9109, a user's 401 / 1000; the user's check refuses them", async () => {
    await seed();
    const own = await emu().call("GET", `accounts/${A}/tokens/verify`, undefined, bearer("tok-a"));
    expect(own.status).toBe(200);
    expect(own.body.result).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), status: "active" });
    expect(JSON.stringify(own.body)).not.toContain("tok-a");
    // The user's check does not know an account's own token, as public reports of the real one say.
    const user = await emu().call("GET", "user/tokens/verify", undefined, bearer("tok-a"));
    expect(user.status).toBe(401);
    expect(user.body.errors).toMatchObject([{ code: 1000, message: "Invalid API Token" }]);
    const other = await emu().call("GET", `accounts/${B}/tokens/verify`, undefined, bearer("tok-a"));
    expect(other.status).toBe(403);
    expect(other.body.errors).toEqual([{ code: 9109, message: "Unauthorized to access requested resource" }]);
    const mine = await emu().call("GET", `accounts/${A}/tokens/verify`);
    expect(mine.status).toBe(401);
    expect(mine.body.errors).toMatchObject([{ code: 1000, message: "Invalid API Token" }]);
    const unknown = await emu().call("GET", `accounts/${A}/tokens/verify`, undefined, bearer("no-such-token"));
    expect(unknown.status).toBe(401);
    expect(unknown.body.errors).toMatchObject([{ code: 1000, message: "Invalid API Token" }]);
    // A disabled token reaches the check, which says so; any other call refuses it.
    await emu().admin("PUT", "tokens", { token: "tok-a", status: "disabled", account_id: A });
    const disabled = await emu().call("GET", `accounts/${A}/tokens/verify`, undefined, bearer("tok-a"));
    expect(disabled.status).toBe(200);
    expect(disabled.body.result.status).toBe("disabled");
    expect((await emu().call("GET", `accounts/${A}/logpush/jobs`, undefined, bearer("tok-a"))).status).toBe(403);
  });

  test("an account shows its own token's policies (GET accounts/{id}/tokens/{id}), no other's", async () => {
    await seed();
    const policies = [{ effect: "allow", resources: { [`com.cloudflare.api.account.${A}`]: "*" } }];
    const { id } = await emu().admin<{ id: string }>("PUT", "tokens", { token: "tok-a", account_id: A, policies });
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const read = await emu().call("GET", `accounts/${A}/tokens/${id}`, undefined, bearer("tok-a"));
    expect(read.status).toBe(200);
    expect(read.body.result).toMatchObject({ id, status: "active", policies });
    // B's token through A's account is refused before any lookup; A's token is not B's to show.
    expect((await emu().call("GET", `accounts/${B}/tokens/${id}`, undefined, bearer("tok-a"))).status).toBe(403);
    await emu().admin("PUT", "tokens", { token: "tok-b", account_id: B, policies });
    const notB = await emu().call("GET", `accounts/${B}/tokens/${id}`, undefined, bearer("tok-b"));
    expect(notB.status).toBe(404);
  });

  test("each token has its own rate limit", async () => {
    const { a } = await seed({ requests: 2, seconds: 60 });
    const path = `zones/${a.zones[0]!.id}/logpush/jobs`;
    for (let i = 0; i < 2; i++) expect((await emu().call("GET", path, undefined, bearer("tok-a"))).status).toBe(200);
    const third = await emu().call("GET", path, undefined, bearer("tok-a"));
    expect(third.status).toBe(429);
    expect(third.headers.get("ratelimit-policy")).toBe('"default";q=2;w=60');
    // Another token's budget is its own.
    expect((await emu().call("GET", `accounts/${B}/logpush/jobs`, undefined, bearer("tok-b"))).status).toBe(200);
  });

  test("account-level Logpush: jobs, account datasets and fields, ownership and validation", async () => {
    await seed();
    const jobs = `accounts/${B}/logpush/jobs`;
    const made = await emu().api<{ id: number; dataset: string }>("POST", jobs, {
      name: "dns",
      dataset: "gateway_dns",
      destination_conf: "https://logs.example.com/dns",
      output_options: { field_names: ["Datetime", "QueryName"] },
    });
    expect(made.dataset).toBe("gateway_dns");
    expect((await emu().api<unknown[]>("GET", jobs)).length).toBe(1);
    await emu().api("PUT", `${jobs}/${made.id}`, { enabled: true });
    expect(await emu().api("GET", `${jobs}/${made.id}`)).toMatchObject({ enabled: true });
    // A zone's dataset is not an account's, and a field the dataset lacks is refused.
    const zoneOnly = await emu().call("POST", jobs, {
      name: "http",
      dataset: "http_requests",
      destination_conf: "https://logs.example.com/h",
    });
    expect(zoneOnly.status).toBe(400);
    const fields = await emu().api<Record<string, string>>("GET", `accounts/${B}/logpush/datasets/audit_logs/fields`);
    expect(Object.keys(fields)).toContain("ActorEmail");
    expect((await emu().call("GET", `accounts/${B}/logpush/datasets/dns_logs/fields`)).status).toBe(400);
    const dest = "s3://bucket/acct/{DATE}?region=eu-west-1";
    const owned = await emu().api<{ filename: string }>("POST", `accounts/${B}/logpush/ownership`, {
      destination_conf: dest,
    });
    expect(owned.filename).toMatch(/^acct\/ownership-challenge-/);
    const valid = await emu().api("POST", `accounts/${B}/logpush/ownership/validate`, {
      destination_conf: dest,
      ownership_challenge: ownershipToken(B, dest),
    });
    expect(valid).toEqual({ valid: true });
    expect(await emu().admin("GET", `ownership/${B}?destination=${encodeURIComponent(dest)}`)).toEqual({
      token: ownershipToken(B, dest),
    });
    await emu().api("DELETE", `${jobs}/${made.id}`);
    expect(await emu().api("GET", jobs)).toEqual([]);
  });
});
