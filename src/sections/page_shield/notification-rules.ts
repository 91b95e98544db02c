// Rules of `notifications:`.
// Spec: docs/configuration.md, `notifications`.
import {
  accountsOf,
  asArray,
  asRecord,
  asString,
  childPointer,
  duplicateEntries,
  itemsOf,
  zonesOf,
  type Finding,
  type Rule,
} from "../rules.js";
import { KNOWN_ALERT_TYPES } from "./alerting.js";

const ZONE_ID = /^[0-9a-f]{32}$/;

/** Zone names compare as hostnames do: case aside, a trailing dot aside. */
const hostKey = (name: string) => name.toLowerCase().replace(/\.$/, "");

export function resolveZoneRef(
  ref: string,
  zones: ReadonlyArray<{ zone_id: string; name?: string }>,
): string | undefined {
  if (ZONE_ID.test(ref)) return ref;
  const named = zones.filter((z) => z.name !== undefined && hostKey(z.name) === hostKey(ref));
  return named.length === 1 ? named[0]!.zone_id : undefined;
}

const zoneRefs: Rule = (doc) => {
  const findings: Finding[] = [];
  const fileAccount = asString(asRecord(doc)?.account_id);
  const zones = [...zonesOf(doc)].flatMap(({ zone }) => {
    const id = asString(zone.zone_id);
    if (id === undefined) return [];
    const name = asString(zone.name);
    return [
      { zone_id: id, ...(name !== undefined ? { name } : {}), account: asString(zone.account_id) ?? fileAccount },
    ];
  });
  for (const { account, pointer } of accountsOf(doc)) {
    const accountId = asString(account.account_id);
    for (const { item, pointer: at } of itemsOf(account.notifications, childPointer(pointer, "notifications"))) {
      asArray(item.zones).forEach((raw, k) => {
        const ref = asString(raw);
        if (ref === undefined) return;
        const where = childPointer(childPointer(at, "zones"), k);
        const named = ZONE_ID.test(ref)
          ? zones.filter((z) => z.zone_id === ref)
          : zones.filter((z) => z.name !== undefined && hostKey(z.name) === hostKey(ref));
        if (!ZONE_ID.test(ref) && named.length === 0) {
          findings.push({
            pointer: where,
            message:
              `no zone of this file is named ${JSON.stringify(ref)}: write the zone's id (32 hex characters) ` +
              "or the name: of a zone declared in this file",
          });
        } else if (named.length > 1) {
          findings.push({
            pointer: where,
            message: `${named.length} zones of this file are named ${JSON.stringify(ref)} (${named
              .map((z) => z.zone_id)
              .join(", ")}): write the zone id the policy means`,
          });
        } else if (named.length === 1 && accountId !== undefined && named[0]!.account !== undefined) {
          if (named[0]!.account !== accountId)
            findings.push({
              pointer: where,
              message:
                `zone ${JSON.stringify(ref)} belongs to account ${named[0]!.account}, not to ${accountId}: a ` +
                "policy's zone filter names zones of its own account",
            });
        }
      });
    }
  }
  return findings;
};

const entries: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { account, pointer } of accountsOf(doc)) {
    const at = childPointer(pointer, "notifications");
    findings.push(
      ...duplicateEntries(
        account.notifications,
        at,
        "name",
        (item) => {
          const name = asString(item.name);
          const type = asString(item.alert_type);
          return name === undefined || type === undefined
            ? undefined
            : { key: JSON.stringify([name, type]), shown: `${JSON.stringify(name)} (${type})` };
        },
        { one: "notification policy", many: "notification policies" },
      ),
    );
    for (const { item, pointer: p } of itemsOf(account.notifications, at)) {
      const type = asString(item.alert_type);
      if (type !== undefined && !KNOWN_ALERT_TYPES.has(type))
        findings.push({
          pointer: childPointer(p, "alert_type"),
          severity: "warning",
          message:
            `alert_type ${JSON.stringify(type)} is not one the API lists (as Cloudflare's SDK knows them); it is ` +
            "sent as written, and the API refuses a type it does not know",
        });
      if (asArray(item.email).length === 0 && asArray(item.webhooks).length === 0)
        findings.push({
          pointer: p,
          severity: "warning",
          message: "this policy notifies no one: give it email: addresses or webhooks: destination ids",
        });
    }
  }
  return findings;
};

export const NOTIFICATION_RULES: readonly Rule[] = [zoneRefs, entries];
