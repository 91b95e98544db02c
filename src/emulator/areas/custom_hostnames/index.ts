// Custom hostnames (SSL for SaaS).
// Spec: docs/emulator.md, What it emulates.
import type { EmulatorArea } from "../../area.js";
import { HEX_ID, UUID } from "../../ids.js";
import { arrayOf, objectOf, upsert } from "../../recorded-items.js";
import { routes } from "./routes.js";
import { seedHostnames } from "./seed.js";
import type { CustomHostnamesZoneState } from "./state.js";

export const customHostnames: EmulatorArea = {
  name: "custom_hostnames",
  routes,
  // Real custom hostname ids are UUIDs; the 2024 schema says 32 characters.
  idParams: { custom_hostname_id: (v) => HEX_ID.test(v) || UUID.test(v) },
  emptyZone: (): CustomHostnamesZoneState => ({ custom_hostnames: [] }),
  seedZone: seedHostnames,
  recorded: [
    {
      path: "zones/:zone/custom_hostnames",
      load: (ctx, [z], r) => (ctx.zone(z!).custom_hostnames = arrayOf(r, "custom hostnames")),
    },
    {
      path: "zones/:zone/custom_hostnames/:id",
      load: (ctx, [z], r) => upsert(ctx.zone(z!).custom_hostnames, objectOf(r, "custom hostname")),
    },
  ],
};
