// Issue 45: a header that can carry a session or a credential is never read from a payment page (so never
// pinned, drafted or shown), and a pin of one is refused; no security header zoneform drafts is one.
import { describe, expect, it } from "vitest";
import { fetchHeaders } from "../../../src/inventory/page-fetch.js";
import { headerNameProblem, isSessionHeader } from "../../../src/sections/page_shield/page-headers.js";
import { SECURITY_HEADERS } from "../../../src/sections/index.js";

describe("session and credential headers", () => {
  it("are the documented names, in any case", () => {
    for (const name of [
      "set-cookie",
      "Set-Cookie",
      "set-cookie2",
      "cookie",
      "authorization",
      "proxy-authorization",
      "www-authenticate",
      "proxy-authenticate",
      "authentication-info",
      "x-api-key",
      "x-auth-token",
      "x-csrf-token",
      "x-xsrf-token",
      "x-csrftoken",
      "x-amz-security-token",
    ])
      expect(isSessionHeader(name), name).toBe(true);
  });

  it("and any name with a session or credential word", () => {
    for (const name of ["x-shop-session", "x_session_id", "x-jwt", "x-my-token", "x-client-secret", "x-shop-api-key"])
      expect(isSessionHeader(name), name).toBe(true);
  });

  it("are none of the security headers, nor CORS's or other headers whose words only look alike", () => {
    for (const name of [
      ...SECURITY_HEADERS,
      "access-control-allow-credentials",
      "access-control-allow-headers",
      "x-authenticated-as",
      "content-type",
      "reporting-endpoints",
      "location",
    ])
      expect(isSessionHeader(name), name).toBe(false);
  });

  it("cannot be pinned: validate says why", () => {
    expect(headerNameProblem("set-cookie")).toBe(
      "set-cookie can carry a session or a credential: zoneform never reads it from a page, so it cannot be " +
        "pinned; remove the pin (pin the security headers: content-security-policy, x-frame-options…)",
    );
    expect(headerNameProblem("Authorization")).toMatch(/^authorization can carry a session/);
    expect(headerNameProblem("x-frame-options")).toBeUndefined();
  });

  it("are dropped as a page's answer is read", () => {
    const h = fetchHeaders({
      "x-frame-options": "DENY",
      "set-cookie": ["sid=1; Secure", "cart=2"],
      "WWW-Authenticate": "Bearer",
      "x-csrf-token": "t",
      location: "/next",
    });
    expect(h).toEqual({ "x-frame-options": "DENY", location: "/next" });
  });
});
