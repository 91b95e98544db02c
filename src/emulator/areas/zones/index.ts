// The zones themselves.
import type { EmulatorArea, RecordedContext } from "../../area.js";
import { arrayOf, objectOf, RecordedAnswerError, type RecordedItem } from "../../recorded-items.js";
import { planNameOf } from "../../zone-plans.js";
import { routes } from "./routes.js";

export const zones: EmulatorArea = {
  name: "zones",
  routes,
  recorded: [
    {
      path: "zones",
      load: (ctx, _ids, r) => {
        for (const z of arrayOf(r, "zones")) upsertZone(ctx, z);
      },
    },
    { path: "zones/:zone", load: (ctx, _ids, r) => upsertZone(ctx, objectOf(r, "zone")) },
  ],
};

function upsertZone(ctx: RecordedContext, item: RecordedItem): void {
  if (!/^[0-9a-f]{32}$/.test(item.id)) throw new RecordedAnswerError(`zone id ${item.id} is not 32 hex characters`);
  const zone = ctx.zone(item.id);
  if (typeof item.name === "string") zone.name = item.name;
  zone.plan = planNameOf(item.plan) ?? "free";
  const { id: _id, name: _name, ...details } = item;
  zone.details = details;
}
