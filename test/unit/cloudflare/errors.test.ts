import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/errors.js";
import { networkError, unwrapResponse, type ResponseContext } from "../../../src/cloudflare/errors.js";
import { permissionHint } from "../../../src/sections/permissions.js";

const zone = "023e105f4ecef8ad9ca31a8372d0c353";
function ctx(over: Partial<ResponseContext>): ResponseContext {
  return {
    method: "GET",
    path: `zones/${zone}/page_shield`,
    status: 200,
    headers: {},
    body: "",
    retries: 0,
    auth: "token",
    redact: (s) => s,
    permissionHint,
    ...over,
  };
}
function fail(over: Partial<ResponseContext>): ApiError {
  try {
    unwrapResponse(ctx(over));
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("no error");
}
const env = (status: number, errors: unknown[]) => ({
  status,
  body: JSON.stringify({ success: false, result: null, errors, messages: [] }),
});

describe("API answers", () => {
  it("unwraps the result and result_info; a 204 is null", () => {
    expect(
      unwrapResponse(
        ctx({ body: JSON.stringify({ success: true, result: [1], result_info: { page: 1 }, errors: [] }) }),
      ),
    ).toEqual({ result: [1], result_info: { page: 1 } });
    expect(unwrapResponse(ctx({ status: 204 }))).toEqual({ result: null });
  });

  it("names the permission a 403's call needs first, then whose it is", () => {
    const e = fail(env(403, [{ code: 10000, message: "Authentication error" }]));
    expect(e.message).toBe(
      `GET zones/${zone}/page_shield needs the "Page Shield: Read" permission on the zone, and was refused ` +
        "(HTTP 403; Cloudflare: Authentication error [10000]): the API token lacks it (or the token is expired or " +
        "disabled)",
    );
    expect(e.info).toMatchObject({
      status: 403,
      method: "GET",
      errors: [{ code: 10000, message: "Authentication error" }],
      retryable: false,
    });
  });

  it("names the zone of a 404 on a zone path, and a malformed id", () => {
    expect(fail(env(404, [{ code: 1001, message: "Invalid zone identifier" }])).message).toMatch(
      new RegExp(`^zone ${zone} not found or not accessible with this token`),
    );
    expect(
      fail({
        ...env(400, [
          { code: 7003, message: "Could not route" },
          { code: 7000, message: "No route" },
        ]),
        path: "zones/nothex/page_shield",
      }).message,
    ).toMatch(/^malformed id "nothex" in GET zones\/nothex\/page_shield/);
  });

  it("keeps pointers and error chains", () => {
    const e = fail(
      env(400, [
        { message: "bad action", source: { pointer: "/rules/0/action" } },
        {
          code: 6003,
          message: "Invalid request headers",
          error_chain: [{ code: 6111, message: "Invalid format for Authorization header" }],
        },
      ]),
    );
    expect(e.info.errors).toContainEqual({ message: "bad action", pointer: "/rules/0/action" });
    expect(e.message).toContain("Invalid format for Authorization header [6111]");
    expect(e.message).toMatch(/^authentication failed/);
  });

  it("turns HTML pages, empty bodies, success:false with 200 and foreign JSON into ApiErrors", () => {
    expect(
      fail({
        status: 502,
        body: "<html><title>502 Bad Gateway</title></html>",
        headers: { "content-type": "text/html" },
      }).message,
    ).toContain('not JSON (text/html: "502 Bad Gateway")');
    expect(fail({ status: 500, body: "" }).message).toContain("an empty body");
    expect(
      fail({ status: 200, body: JSON.stringify({ success: false, errors: [{ code: 1, message: "nope" }] }) }).message,
    ).toContain("reported a failure with HTTP 200: nope [1]");
    expect(fail({ status: 200, body: JSON.stringify({ hello: "world" }) }).message).toContain(
      "not a Cloudflare API envelope",
    );
    expect(fail({ status: 200, body: "[1,2" }).info.status).toBe(200);
  });

  it("marks which failures are retryable, and that a failed POST may have happened", () => {
    expect(fail(env(503, [])).info.retryable).toBe(true);
    const post = fail({ ...env(503, []), method: "POST" });
    expect(post.info.retryable).toBe(false);
    expect(post.message).toContain("may or may not have been carried out");
    expect(fail({ ...env(429, []), retryAfterTooLongMs: 300_000 }).message).toContain("asks to wait 300s");
  });

  it("makes a POST without an answer an ambiguous NetworkError, a refused connection not", () => {
    const base = {
      path: "zones/x/page_shield/policies",
      origin: "https://api.cloudflare.com",
      cause: "",
      retries: 0,
      timeoutMs: 30000,
    };
    expect(networkError({ ...base, method: "POST", code: "ECONNRESET" }).info.ambiguous).toBe(true);
    expect(networkError({ ...base, method: "POST", code: "ECONNREFUSED" }).info.ambiguous).toBe(false);
    expect(networkError({ ...base, method: "GET", code: "UND_ERR_HEADERS_TIMEOUT" }).message).toContain(
      "no answer within 30000 ms",
    );
  });
});

// real-answers.md, "Changes since the seed documents": `errors[]` items may carry `documentation_url`
// (cloudflare-typescript src/resources/shared.ts).
describe("documentation_url on API errors", () => {
  const page = "https://developers.cloudflare.com/api/resources/custom_hostnames/methods/edit/";

  it("shows the page once after the messages, with code and pointer kept", () => {
    const e = fail({
      ...env(400, [
        {
          code: 1459,
          message: "Certificate Authority selection is only available on an Enterprise plan.",
          documentation_url: page,
          source: { pointer: "/ssl/certificate_authority" },
        },
        { code: 1004, message: "other", documentation_url: page },
      ]),
      method: "PATCH",
    });
    expect(e.message).toContain(
      `Certificate Authority selection is only available on an Enterprise plan. [1459] at ` +
        `/ssl/certificate_authority; other [1004]; see ${page})`,
    );
    expect(e.message.split(page)).toHaveLength(2);
    expect(e.info.errors[0]).toEqual({
      code: 1459,
      message: "Certificate Authority selection is only available on an Enterprise plan.",
      pointer: "/ssl/certificate_authority",
      documentation_url: page,
    });
  });

  it("never shows a URL that is not plain https, carries a user, or holds a secret", () => {
    const bad = [
      "http://developers.cloudflare.com/api",
      "javascript:alert(1)",
      "https://user:pass@developers.cloudflare.com/api",
      "https://developers.cloudflare.com/a b",
      "https://developers.cloudflare.com/\u001b[31m",
      `https://developers.cloudflare.com/${"a".repeat(300)}`,
      "https://developers.cloudflare.com/?t=SECRETSECRET",
      42,
    ];
    for (const url of bad) {
      const e = fail({
        ...env(400, [{ code: 1004, message: "bad", documentation_url: url }]),
        redact: (s) => s.replaceAll("SECRETSECRET", "[redacted]"),
      });
      expect(e.message).not.toContain("see ");
      expect(e.info.errors[0]!.documentation_url).toBeUndefined();
    }
  });

  it("shows it with an authentication failure too", () => {
    const e = fail(
      env(401, [
        { code: 10000, message: "Authentication error", documentation_url: "https://developers.cloudflare.com/api" },
      ]),
    );
    expect(e.message).toMatch(
      /^authentication failed .*Authentication error \[10000\]; see https:\/\/developers\.cloudflare\.com\/api\)/,
    );
  });
});
