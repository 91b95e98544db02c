// Page Shield.
// Spec: docs/emulator.md, What it emulates.
import type { EmulatorArea } from "../../area.js";
import { HEX_ID } from "../../ids.js";
import { arrayOf, objectOf, upsert } from "../../recorded-items.js";
import { admin } from "./admin.js";
import { routes } from "./routes.js";
import { seedInventory } from "./seed.js";
import type { PageShieldZoneState } from "./state.js";

const hex = (v: string) => HEX_ID.test(v);

export const pageShield: EmulatorArea = {
  name: "page_shield",
  routes,
  idParams: { policy_id: hex, script_id: hex, connection_id: hex, cookie_id: hex },
  emptyZone: ({ now }): PageShieldZoneState => ({
    page_shield: {
      enabled: false,
      updated_at: now,
      use_cloudflare_reporting_endpoint: true,
      use_connection_url_path: false,
    },
    policies: [],
    scripts: [],
    connections: [],
    cookies: [],
  }),
  seedZone: seedInventory,
  recorded: [
    {
      path: "zones/:zone/page_shield/policies",
      load: (ctx, [z], r) => (ctx.zone(z!).policies = arrayOf(r, "policies")),
    },
    {
      path: "zones/:zone/page_shield/policies/:id",
      load: (ctx, [z], r) => upsert(ctx.zone(z!).policies, objectOf(r, "policy")),
    },
  ],
  admin,
};
