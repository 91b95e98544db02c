import { CLOUDFLARE_MANAGED_RULESET_ID } from "../../../src/sections/waf/managed-ruleset.js";
import { putEntrypoint, type UnmetCase } from "../unmet-helpers.js";

// enabled: false, and a second enabled execute rule keeps the ruleset deployed.
export const unmet: UnmetCase = async (ctx) => {
  await putEntrypoint(
    ctx,
    "http_request_firewall_managed",
    [1, 2].map((n) => ({
      action: "execute",
      expression: n === 1 ? "true" : 'http.host eq "api.example.com"',
      description: `deploy ${n}`,
      action_parameters: { id: CLOUDFLARE_MANAGED_RULESET_ID },
    })),
  );
  return {
    yaml: "waf:\n  cloudflare_managed:\n    enabled: false\n",
    says: "2 execute rules deploy the Cloudflare Managed Ruleset",
  };
};
