// Notifications: an account's alerting v3 policies.
// Spec: docs/emulator.md, What it emulates.
import type { EmulatorArea } from "../../area.js";
import { UUID } from "../../ids.js";
import { RecordedAnswerError } from "../../recorded-items.js";
import { isObject } from "../../validate.js";
import { routes } from "./routes.js";
import type { AlertingPolicy } from "./state.js";

export const notifications: EmulatorArea = {
  name: "notifications",
  routes,
  // Policy ids are UUIDs (the SDK's examples); older answers show 32 hex.
  idParams: { alerting_policy_id: (v) => UUID.test(v) || /^[0-9a-f]{32}$/.test(v) },
  emptyAccount: () => ({ alerting_policies: [] }),
  recorded: [
    {
      path: "accounts/:account/alerting/v3/policies",
      load: (ctx, [a], r) => (ctx.account(a!).alerting_policies = policiesOf(r)),
    },
  ],
};

function policiesOf(result: unknown): AlertingPolicy[] {
  return (Array.isArray(result) ? result : []).map((p, i) => {
    if (!isObject(p) || typeof p.id !== "string") throw new RecordedAnswerError(`notification policy ${i} has no id`);
    return p as AlertingPolicy;
  });
}
