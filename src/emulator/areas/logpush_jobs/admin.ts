// Logpush admin endpoint: reads back the ownership token written to a destination.
// Spec: docs/emulator.md, Admin API.
import type { AdminHandler } from "../../area.js";
import { AdminError } from "../../admin-input.js";
import { ownershipToken } from "./ownership.js";

export const admin: Record<string, AdminHandler> = {
  "GET ownership": (ctx, _body, url, zoneId) => {
    const destination = url.searchParams.get("destination");
    if (!destination) throw new AdminError(400, "the destination query parameter is required");
    const known =
      zoneId !== undefined &&
      (ctx.state.zones.some((z) => z.id === zoneId) ||
        zoneId === ctx.state.account_id ||
        (ctx.state.accounts ?? []).some((a) => a.id === zoneId));
    if (!known) throw new AdminError(404, `no zone or account ${zoneId ?? ""}`);
    return { token: ownershipToken(zoneId!, destination) };
  },
};
