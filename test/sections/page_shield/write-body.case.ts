import { expect } from "vitest";
import { normalizePolicy } from "../../../src/sections/page_shield/policies.js";
import { onlyChange, sdkBody, type WriteBodyCase, zoneOf } from "../write-body-helpers.js";

export const writeBody: WriteBodyCase = () => {
  // A policy PUT: the five fields of PolicyUpdateParams, the live values with the one change.
  const live = normalizePolicy({
    id: "p1",
    description: "Checkout",
    action: "allow",
    expression: 'http.request.uri.path contains "/checkout"',
    value: "script-src 'self'",
    enabled: true,
  });
  const zone = zoneOf(
    "page_shield:\n  policies:\n    - description: Checkout\n      action: allow\n      expression: " +
      `'http.request.uri.path contains "/checkout"'\n      value: "script-src 'self' https://js.stripe.com"\n`,
  );
  const put = onlyChange("page_shield", "page_shield_policy", zone, [live]).operations[0]!;
  expect(put.method).toBe("PUT");
  expect(Object.keys(put.body as object).sort()).toEqual(
    sdkBody("page-shield/policies.d.ts", "PolicyUpdateParams").sort(),
  );
  const { id: _id, ...rest } = live;
  expect(put.body).toEqual({ ...rest, value: "script-src 'self' https://js.stripe.com" });

  // The settings PUT: every setting of PageShieldUpdateParams the live answer states.
  const settings = { enabled: false, use_cloudflare_reporting_endpoint: true, use_connection_url_path: false };
  const set = onlyChange("page_shield", "page_shield_settings", zoneOf("page_shield:\n  enabled: true\n"), settings)
    .operations[0]!;
  expect(set.method).toBe("PUT");
  expect(Object.keys(set.body as object).sort()).toEqual(
    sdkBody("page-shield/page-shield.d.ts", "PageShieldUpdateParams").sort(),
  );
  expect(set.body).toEqual({ ...settings, enabled: true });
};
