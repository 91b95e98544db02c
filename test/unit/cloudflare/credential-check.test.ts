// The token check's verdicts, the messages of a refused call, the one check per run of the client
// wrapper, and what a file needs against what a token's policies grant.
import { describe, expect, it } from "vitest";
import {
  checkCredentials,
  describeCheck,
  explainAuthFailure,
  tokenVerdict,
  withCredentialCheck,
} from "../../../src/cloudflare/credential-check.js";
import { coversTarget, lacking, levelHeld } from "../../../src/cloudflare/token-permissions.js";
import { permissionHint, permissionsNeeded } from "../../../src/sections/permissions.js";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";
import { ApiError, NetworkError } from "../../../src/errors.js";
import type { DesiredState } from "../../../src/sections/index.js";
import { NO_SECRETS } from "../../../src/secrets/index.js";

const NOW = Date.parse("2026-06-01T00:00:00Z");
const ZONE_A = "a".repeat(32);
const ZONE_B = "b".repeat(32);
const ACCOUNT = "c".repeat(32);

function apiError(
  status: number,
  path: string,
  errors: Array<{ code: number; message: string }>,
  envelope = true,
): ApiError {
  return new ApiError(`refused ${path}`, { status, method: "GET", path, errors, retryable: false, envelope });
}

/** A client whose every call is answered by `answer` (a value, or an error thrown). */
function fakeClient(answer: (path: string) => unknown): CloudflareClient & { calls: string[] } {
  const calls: string[] = [];
  const call = async (path: string) => {
    calls.push(path);
    const a = answer(path);
    if (a instanceof Error) throw a;
    return a;
  };
  return {
    calls,
    request: (_m, path) => call(path) as Promise<never>,
    requestEnvelope: async (_m, path) => ({ result: (await call(path)) as never, status: 200 }),
    async *paginate(path) {
      yield (await call(path)) as never;
    },
    async *paginateCursor(path) {
      yield (await call(path)) as never;
    },
    listAll: async (path) => [(await call(path)) as never],
    stats: () => ({ requests: calls.length, retries: 0, throttled: 0 }),
    close: async () => undefined,
  };
}

describe("the token check's verdict", () => {
  it("reads status, expires_on and not_before", () => {
    expect(tokenVerdict({ id: "t1", status: "active" }, NOW)).toMatchObject({ state: "active", id: "t1" });
    expect(tokenVerdict({ id: "t1", status: "expired" }, NOW).state).toBe("expired");
    // The API's status is its verdict: an expires_on past (or a not_before ahead) by this machine's
    // clock does not turn "active" into "expired"; the disagreement is noted.
    expect(tokenVerdict({ id: "t1", status: "active", expires_on: "2026-05-31T00:00:00Z" }, NOW)).toEqual({
      kind: "token",
      state: "active",
      id: "t1",
      status: "active",
      expiresOn: "2026-05-31T00:00:00Z",
      clockDisagrees: true,
    });
    expect(tokenVerdict({ id: "t1", status: "active", expires_on: "2026-07-01T00:00:00Z" }, NOW)).not.toHaveProperty(
      "clockDisagrees",
    );
    expect(tokenVerdict({ id: "t1", status: "disabled" }, NOW).state).toBe("disabled");
    expect(tokenVerdict({ id: "t1", status: "active", not_before: "2026-07-01T00:00:00Z" }, NOW)).toMatchObject({
      state: "active",
      clockDisagrees: true,
    });
    // With no status at all, the dates are all there is.
    expect(tokenVerdict({ id: "t1", expires_on: "2026-05-31T00:00:00Z" }, NOW).state).toBe("expired");
    expect(tokenVerdict({ id: "t1", not_before: "2026-07-01T00:00:00Z" }, NOW)).toMatchObject({
      state: "not_yet_valid",
      notBefore: "2026-07-01T00:00:00Z",
    });
    expect(tokenVerdict({ id: "t1", status: "weird" }, NOW).state).toBe("unknown");
    expect(tokenVerdict(null, NOW).state).toBe("unknown");
  });

  it(
    "takes a 401 / 1000 of the check for an invalid token, and anything else it cannot read for " + "'cannot tell'",
    async () => {
      const invalid = fakeClient(() =>
        apiError(401, "user/tokens/verify", [{ code: 1000, message: "Invalid API Token" }]),
      );
      expect(await checkCredentials(invalid, "token", NOW)).toMatchObject({
        state: "invalid",
        detail: 'HTTP 401 "Invalid API Token [1000]"',
      });
      const accountToken = fakeClient(() =>
        apiError(403, "user/tokens/verify", [{ code: 9109, message: "Unauthorized" }]),
      );
      expect((await checkCredentials(accountToken, "token", NOW)).state).toBe("unknown");
      const key = fakeClient(() => ({ id: "u1", email: "me@example.com" }));
      expect(await checkCredentials(key, "key", NOW)).toMatchObject({ state: "active", email: "me@example.com" });
      expect(key.calls).toEqual(["user"]);
      const badKey = fakeClient(() =>
        apiError(403, "user", [{ code: 9103, message: "Unknown X-Auth-Key or X-Auth-Email" }]),
      );
      expect((await checkCredentials(badKey, "key", NOW)).state).toBe("invalid");
    },
  );

  it("checks an account-owned token by its accounts: cfat_ there only, any other after the user's check refused", async () => {
    const OTHER = "d".repeat(32);
    const invalid = (path: string) => apiError(401, path, [{ code: 1000, message: "Invalid API Token" }]);
    const notHere = (path: string) => apiError(403, path, [{ code: 9109, message: "Unauthorized" }]);
    // Known by ACCOUNT's check alone (the user's does not know it; OTHER's refuses it).
    const ofAccount = () =>
      fakeClient((path) =>
        path === `accounts/${ACCOUNT}/tokens/verify`
          ? { id: "t9", status: "active" }
          : path === "user/tokens/verify"
            ? invalid(path)
            : notHere(path),
      );
    const prefixed = ofAccount();
    expect(
      await checkCredentials(prefixed, "token", NOW, { accounts: [OTHER, ACCOUNT], accountOwned: true }),
    ).toMatchObject({ state: "active", id: "t9", account: ACCOUNT, checkedAt: `accounts/${ACCOUNT}/tokens/verify` });
    expect(prefixed.calls).toEqual([`accounts/${OTHER}/tokens/verify`, `accounts/${ACCOUNT}/tokens/verify`]);
    const older = ofAccount();
    const found = await checkCredentials(older, "token", NOW, { accounts: [ACCOUNT, ACCOUNT] });
    expect(found).toMatchObject({ state: "active", account: ACCOUNT });
    expect(older.calls).toEqual(["user/tokens/verify", `accounts/${ACCOUNT}/tokens/verify`]);
    expect(describeCheck(found)).toBe(
      `the API token in CLOUDFLARE_API_TOKEN (id t9) is valid and active, a token of account ${ACCOUNT}`,
    );
    // A user's token: the user's check answers, no account is asked.
    const user = fakeClient(() => ({ id: "u1", status: "active" }));
    expect(await checkCredentials(user, "token", NOW, { accounts: [ACCOUNT] })).not.toHaveProperty("account");
    expect(user.calls).toEqual(["user/tokens/verify"]);
    // cfat_ with no account known: the user's check is all there is.
    const alone = fakeClient(invalid);
    expect((await checkCredentials(alone, "token", NOW, { accounts: [], accountOwned: true })).state).toBe("invalid");
    expect(alone.calls).toEqual(["user/tokens/verify"]);
    // No check knows it: invalid, each answer told, and where an account's own token is made.
    const nobody = fakeClient((path) => (path === "user/tokens/verify" ? invalid(path) : notHere(path)));
    const verdict = await checkCredentials(nobody, "token", NOW, { accounts: [ACCOUNT] });
    expect(verdict).toMatchObject({ state: "invalid" });
    expect(describeCheck(verdict)).toBe(
      `CLOUDFLARE_API_TOKEN (for account ${ACCOUNT}) is not a valid API token: Cloudflare's token checks answered HTTP 401 "Invalid API ` +
        `Token [1000]" (GET user/tokens/verify), HTTP 403 "Unauthorized [9109]" (GET accounts/${ACCOUNT}/tokens/` +
        "verify). It may be mistyped, deleted, rolled or another account's: set it to a current token (My Profile → API Tokens), or " +
        "an account's own (Manage Account → Account API Tokens); a global API key goes in CLOUDFLARE_API_KEY, with " +
        "CLOUDFLARE_EMAIL",
    );
    // A check that cannot answer (the network) is no refusal: it stops there, 'cannot tell'.
    const down = fakeClient(
      (path) => new NetworkError(`GET ${path}: connection reset`, { method: "GET", path, ambiguous: false }),
    );
    expect(await checkCredentials(down, "token", NOW, { accounts: [ACCOUNT], accountOwned: true })).toMatchObject({
      state: "unknown",
      detail: `GET accounts/${ACCOUNT}/tokens/verify: connection reset`,
    });
    expect(down.calls).toHaveLength(1);
    // A refused call of an account-owned token that checks active: add the permission on its account's page.
    const refused = apiError(403, `accounts/${ACCOUNT}/logpush/jobs`, [
      { code: 10000, message: "Authentication error" },
    ]);
    expect(explainAuthFailure(refused, found).message).toContain(
      `add it to the token (account ${ACCOUNT}: Manage Account → Account API Tokens → Edit)`,
    );
  });

  it("names the permission a refused call needs only when the token is active, else the token's state alone", () => {
    const refused = apiError(403, `zones/${ZONE_A}/page_shield`, [{ code: 10000, message: "Authentication error" }]);
    expect(explainAuthFailure(refused, { kind: "token", state: "unknown" }, permissionHint)).toBe(refused);
    const needs =
      `GET zones/${ZONE_A}/page_shield needs the "Page Shield: Read" permission on the zone, and was refused ` +
      "(HTTP 403; Cloudflare: Authentication error [10000]): ";
    const active = explainAuthFailure(refused, { kind: "token", state: "active", id: "t1" }, permissionHint);
    expect(active.info).toBe(refused.info);
    expect(active.message).toBe(
      `${needs}the API token lacks it (the API token in CLOUDFLARE_API_TOKEN (id t1) is valid and active): add ` +
        "it to the token (My Profile → API Tokens → Edit)",
    );
    const expired = explainAuthFailure(
      refused,
      { kind: "token", state: "expired", id: "t1", status: "expired", expiresOn: "2026-01-01T00:00:00Z" },
      permissionHint,
    );
    expect(expired.message).toBe(
      "the API token in CLOUDFLARE_API_TOKEN (id t1) has expired (expires_on 2026-01-01T00:00:00Z): roll " +
        `it or create a new one (My Profile → API Tokens) (GET zones/${ZONE_A}/page_shield was refused with HTTP 403)`,
    );
    // Cloudflare says active, this machine's clock says expired: the API's verdict is reported, never "expired".
    const skewed = explainAuthFailure(
      refused,
      tokenVerdict({ id: "t1", status: "active", expires_on: "2026-05-31T00:00:00Z" }, NOW),
      permissionHint,
    );
    expect(skewed.message).not.toMatch(/expired/);
    expect(skewed.message).toBe(
      `${needs}the API token lacks it (the API token in CLOUDFLARE_API_TOKEN (id t1) is active by Cloudflare's ` +
        "token check (GET user/tokens/verify), although its expires_on 2026-05-31T00:00:00Z says otherwise by this " +
        "machine's clock (is the clock right?)): add it to the token (My Profile → API Tokens → Edit)",
    );
    expect(
      explainAuthFailure(refused, { kind: "token", state: "not_yet_valid", notBefore: "2027-01-01T00:00:00Z" }).message,
    ).toContain("is not valid yet: its not_before is 2027-01-01T00:00:00Z");
    // A 401 is about the credentials alone: what is wrong with them, and which call was refused.
    const unauthorized = apiError(401, `zones/${ZONE_A}/page_shield`, [
      { code: 10000, message: "Authentication error" },
    ]);
    expect(explainAuthFailure(unauthorized, { kind: "token", state: "disabled", id: "t1" }).message).toBe(
      "the API token in CLOUDFLARE_API_TOKEN (id t1) is disabled: enable it again (My Profile → API Tokens) or use " +
        `another (GET zones/${ZONE_A}/page_shield was refused with HTTP 401)`,
    );
    expect(explainAuthFailure(unauthorized, { kind: "token", state: "active" })).toBe(unauthorized);
  });
});

describe("withCredentialCheck", () => {
  it("checks once for many refused calls, through every kind of call, and leaves other errors alone", async () => {
    const client = fakeClient((path) => {
      if (path === "user/tokens/verify") return { id: "t1", status: "disabled" };
      if (path.endsWith("/missing")) return apiError(404, path, [{ code: 10006, message: "not found" }]);
      if (path.endsWith("/html")) return apiError(403, path, [], false);
      return apiError(403, path, [{ code: 10000, message: "Authentication error" }]);
    });
    const wrapped = withCredentialCheck(client, "token");
    const caught = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    const errors = await Promise.all([
      caught(wrapped.request("GET", `zones/${ZONE_A}/page_shield`)),
      caught(wrapped.listAll(`zones/${ZONE_A}/page_shield/policies`)),
      caught(
        (async () => {
          for await (const _ of wrapped.paginate(`zones/${ZONE_B}/page_shield/scripts`)) void _;
        })(),
      ),
    ]);
    for (const e of errors) expect(e?.message).toMatch(/^the API token in CLOUDFLARE_API_TOKEN \(id t1\) is disabled/);
    expect(client.calls.filter((c) => c === "user/tokens/verify")).toHaveLength(1);
    expect((await caught(wrapped.request("GET", `zones/${ZONE_A}/missing`)))?.message).toBe(
      `refused zones/${ZONE_A}/missing`,
    );
    expect((await caught(wrapped.request("GET", `zones/${ZONE_A}/html`)))?.message).toBe(
      `refused zones/${ZONE_A}/html`,
    );
    // Methods it does not override are the client's own.
    expect(wrapped.stats()).toEqual(client.stats());
  });
});

describe("withCredentialCheck of an account's token", () => {
  it("asks the account's own check, once, and never explains a refusal of the checks themselves", async () => {
    const client = fakeClient((path) =>
      path === `accounts/${ACCOUNT}/tokens/verify`
        ? { id: "t9", status: "expired" }
        : apiError(403, path, [{ code: 10000, message: "Authentication error" }]),
    );
    const wrapped = withCredentialCheck(client, "token", undefined, { accounts: [ACCOUNT], accountOwned: true });
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: Error) => e.message,
      );
    expect(await refusal(wrapped.request("GET", `zones/${ZONE_A}/page_shield`))).toContain(
      "the API token in CLOUDFLARE_API_TOKEN (id t9) has expired",
    );
    expect(await refusal(wrapped.request("GET", `accounts/${ACCOUNT}/tokens/abc`))).toBe(
      `refused accounts/${ACCOUNT}/tokens/abc`,
    );
    expect(client.calls.filter((c) => c.endsWith("/verify"))).toEqual([`accounts/${ACCOUNT}/tokens/verify`]);
  });
});

describe("permissions a file needs and a token holds", () => {
  const desired = {
    version: 1,
    account_id: ACCOUNT,
    safety: { max_deletes: 10 },
    secrets: NO_SECRETS,
    files: ["zoneform.yaml"],
    zones: [
      {
        zone_id: ZONE_A,
        page_shield: { enabled: true, prune: true },
        waf: { owasp: {} },
        logs: { logpush_jobs: [], prune: true },
      },
      { zone_id: ZONE_B, page_shield: { enabled: true, prune: true }, custom_hostnames: [] },
    ],
  } as unknown as DesiredState;

  it("derives one need per permission from the sections, with what plan and apply need", () => {
    const needs = permissionsNeeded(desired);
    expect(needs.map((n) => [n.name, n.scope, n.plan, n.apply, n.on.length])).toEqual([
      ["Zone", "zone", "Read", "Read", 2],
      ["Page Shield", "zone", "Read", "Edit", 2],
      ["Zone WAF", "zone", "Read", "Edit", 1],
      ["Account Rulesets", "account", "Read", "Read", 1],
      ["Logs", "zone", "Edit", "Edit", 1],
      ["SSL and Certificates", "zone", "Read", "Edit", 1],
    ]);
  });

  it("matches policies by permission group and resources, deny taking away", () => {
    const zoneA = { [`com.cloudflare.api.account.zone.${ZONE_A}`]: "*" };
    const policies = [
      { effect: "allow", resources: zoneA, permission_groups: [{ name: "Page Shield Write" }, { name: "Zone Read" }] },
      {
        effect: "allow",
        resources: { [`com.cloudflare.api.account.${ACCOUNT}`]: { "com.cloudflare.api.account.zone.*": "*" } },
        permission_groups: [{ name: "Page Shield Read" }],
      },
      { effect: "deny", resources: zoneA, permission_groups: [{ name: "Zone Read" }] },
    ];
    expect(levelHeld(policies, { name: "Page Shield", scope: "zone" }, ZONE_A)).toBe("Edit");
    expect(levelHeld(policies, { name: "Page Shield", scope: "zone" }, ZONE_B)).toBe("Read");
    expect(levelHeld(policies, { name: "Zone", scope: "zone" }, ZONE_A)).toBe("none");
    expect(
      lacking(policies, {
        name: "Page Shield",
        scope: "zone",
        plan: "Read",
        apply: "Edit",
        sections: [],
        on: [ZONE_A, ZONE_B],
      }),
    ).toEqual({ plan: [], apply: [ZONE_B] });
    expect(coversTarget({ "com.cloudflare.api.account.*": "*" }, "account", ACCOUNT)).toBe(true);
    expect(coversTarget({ [`com.cloudflare.api.account.zone.${ZONE_B}`]: "*" }, "zone", ZONE_A)).toBe(false);
  });
});
