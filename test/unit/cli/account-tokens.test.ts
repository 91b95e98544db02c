// Which token each zone and account of a configuration is called with (src/cli/account-tokens.ts), and
// the client that routes each call to the client of its zone's or account's token
// (src/cloudflare/token-router.ts): pure, with recording clients.
import { describe, expect, it } from "vitest";
import { accountTokens, needsDefaultToken, zoneAccount } from "../../../src/cli/account-tokens.js";
import { parseConfigText } from "../../../src/config/index.js";
import { RunStoppedError } from "../../../src/errors.js";
import { clientFor, pathScope, routeByToken } from "../../../src/cloudflare/token-router.js";
import type { CloudflareClient } from "../../../src/cloudflare/types.js";

const A = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a";
const B = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b";
const C = "0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c";
const Z1 = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
const Z2 = "a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2";
const Z3 = "a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3";
const Z4 = "a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4";

function load(text: string, env: Record<string, string>) {
  return parseConfigText(text, "z.yaml", env).desired;
}

describe("account tokens", () => {
  const text = `version: 1
account_id: ${A}
accounts:
  - account_id: ${A}
    api_token: \${env:TOKEN_A}
  - account_id: ${B}
    api_token: \${env:TOKEN_B}
  - account_id: ${C}
zones:
  - zone_id: ${Z1}
  - zone_id: ${Z2}
    account_id: ${B}
  - zone_id: ${Z3}
    account_id: ${C}
  - zone_id: ${Z4}
    account_id: ${A}
`;

  it("serves each account's own objects and the zones of the account (its own account_id, else the file's)", () => {
    const desired = load(text, { TOKEN_A: "a", TOKEN_B: "b" });
    expect(zoneAccount(desired, desired.zones[0]!)).toBe(A);
    expect(accountTokens(desired, { TOKEN_A: "a", TOKEN_B: "b" })).toEqual([
      { env: "TOKEN_A", value: "a", accounts: [A], zones: [Z1, Z4] },
      { env: "TOKEN_B", value: "b", accounts: [B], zones: [Z2] },
    ]);
    // C has no token: its zone and its entry go with the default credentials.
    expect(needsDefaultToken(desired)).toBe(true);
  });

  it("is one token (one limit) for two entries naming the same value, the first entry's variable", () => {
    const desired = load(text, { TOKEN_A: "same", TOKEN_B: "same" });
    expect(accountTokens(desired, { TOKEN_A: "same", TOKEN_B: "same" })).toEqual([
      { env: "TOKEN_A", value: "same", accounts: [A, B], zones: [Z1, Z2, Z4] },
    ]);
  });

  it("needs no default token when every zone and account has one of its own", () => {
    const all = load(
      `version: 1
accounts:
  - account_id: ${A}
    api_token: \${env:TOKEN_A}
zones:
  - zone_id: ${Z1}
    account_id: ${A}
`,
      { TOKEN_A: "a" },
    );
    expect(needsDefaultToken(all)).toBe(false);
  });
});

/** A client that records the paths it was asked for. */
function recording(name: string, seen: string[]): CloudflareClient {
  let stopped: RunStoppedError | undefined;
  return {
    request: async (_m, path) => {
      seen.push(`${name} ${path}`);
      return null as never;
    },
    requestEnvelope: async (_m, path) => {
      seen.push(`${name} ${path}`);
      return { result: null as never, status: 200 };
    },
    paginate: () => (async function* () {})(),
    paginateCursor: () => (async function* () {})(),
    listAll: async (path) => {
      seen.push(`${name} ${path}`);
      return [];
    },
    stats: () => ({ requests: 1, retries: 0, throttled: 0 }),
    stop: (r) => {
      stopped ??= r;
    },
    stopped: () => stopped,
    close: async () => undefined,
  };
}

describe("the token router", () => {
  it("sends each call to the client of the zone or account its path addresses, anything else to the default", async () => {
    const seen: string[] = [];
    const fallback = recording("default", seen);
    const a = recording("a", seen);
    const b = recording("b", seen);
    const routes = {
      fallback,
      zones: new Map([[Z1, a]]),
      accounts: new Map([
        [A, a],
        [B, b],
      ]),
    };
    const client = routeByToken(routes);
    await client.request("GET", `zones/${Z1}/logpush/jobs`);
    await client.listAll(`accounts/${B}/logpush/jobs`);
    await client.request("GET", `accounts/${A}`);
    await client.request("GET", `zones/${Z2}/page_shield`);
    await client.request("GET", "zones?name=example.com");
    await client.request("GET", "user/tokens/verify");
    expect(seen).toEqual([
      `a zones/${Z1}/logpush/jobs`,
      `b accounts/${B}/logpush/jobs`,
      `a accounts/${A}`,
      `default zones/${Z2}/page_shield`,
      "default zones?name=example.com",
      "default user/tokens/verify",
    ]);
    expect(client.stats()).toEqual({ requests: 3, retries: 0, throttled: 0 });
    expect(pathScope(`zones/${Z1}`)).toEqual({ scope: "zones", id: Z1 });
    expect(pathScope("zones")).toBeUndefined();
    expect(clientFor(routes, `accounts/${C}/logpush/jobs`)).toBe(fallback);
  });

  it("stops every client when one stops, before anything more is sent", async () => {
    const seen: string[] = [];
    const fallback = recording("default", seen);
    const a = recording("a", seen);
    const client = routeByToken({ fallback, zones: new Map([[Z1, a]]), accounts: new Map() });
    const reason = new RunStoppedError("the deadline passed", 124, "deadline");
    a.stop!(reason);
    await client.request("GET", "user");
    expect(fallback.stopped!()).toBe(reason);
    expect(client.stopped!()).toBe(reason);
  });
});
