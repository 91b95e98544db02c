// The hints a section gives for the API's error codes, attached by apply to a failed change's line:
// the engine looks them up by the change's kind and knows no product.
import { describe, expect, it } from "vitest";
import { errorHints } from "../../../src/engine/execute.js";
import { ApiError, NetworkError } from "../../../src/errors.js";
import type { Change } from "../../../src/model/plan.js";
import { CA_NEEDS_ENTERPRISE, caNeedsEnterpriseHint } from "../../../src/sections/custom_hostnames/custom-hostnames.js";

const change: Change = {
  kind: "update",
  resource: "custom_hostname",
  zone_id: "z",
  identity: "shop.example",
  live_id: "id",
  summary: "",
  before: {},
  after: {},
  fields: [{ field: "certificate_authority", before: "google", after: "ssl_com" }],
  operations: [],
};
const apiError = (codes: number[]) =>
  new ApiError("rejected", {
    status: 400,
    method: "PATCH",
    path: "p",
    errors: codes.map((code) => ({ code, message: "m" })),
    retryable: false,
    envelope: true,
  });

describe("error hints", () => {
  it("gives the custom hostname's advice for 1459 once, naming the hostname, the key and the CA", () => {
    expect(errorHints(change, apiError([1459, 1459]))).toEqual([caNeedsEnterpriseHint(change)]);
    expect(caNeedsEnterpriseHint(change)).toContain(
      'remove certificate_authority: ssl_com from hostname shop.example (or set it to "")',
    );
    expect(CA_NEEDS_ENTERPRISE).toBe(1459);
  });

  it("gives nothing for another code, another kind, or an error that is not the API's", () => {
    expect(errorHints(change, apiError([1434]))).toEqual([]);
    expect(errorHints({ ...change, resource: "page_shield_policy" }, apiError([1459]))).toEqual([]);
    expect(
      errorHints(
        change,
        new NetworkError("down", { method: "PATCH", path: "p", ambiguous: true, cause: "ECONNRESET" }),
      ),
    ).toEqual([]);
  });
});
