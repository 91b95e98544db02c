// The WAF migration's decisions and explanations, pure.
import { WAF_KEY } from "../sections/index.js";

/** `GET zones/{z}/waf_migration/check?phase_two=1` → result. */
export interface MigrationCheck {
  compatible: boolean;
  /** `start` for an eligible zone not yet migrated; other values are not documented. */
  migration_state: string;
  reason?: string;
}

/** `GET zones/{z}/waf_migration/status` → result (types unconfirmed, all optional). */
export interface MigrationStatus {
  created?: string | null;
  migration_state?: string;
  new_waf_status?: string;
  old_waf_status?: string;
  source?: string | null;
}

export type MigrationMode = "validation" | "pending";

export const MIGRATION_MODES: readonly MigrationMode[] = ["validation", "pending"];

const INELIGIBLE_ADVICE = [
  "A zone with URI-based WAF overrides (objects only the API can make) is ineligible until those overrides " +
    "are deleted.",
  "More than 200 firewall rules to migrate, or a firewall rule expression longer than 4 KB: contact " +
    "Cloudflare support.",
];

export interface CheckExplanation {
  eligible: boolean;
  lines: string[];
}

/** The meaning of a check answer for `zone` (its id or name). */
export function explainCheck(zone: string, check: MigrationCheck): CheckExplanation {
  const state = check.migration_state;
  if (!check.compatible) {
    return {
      eligible: false,
      lines: [
        `Zone ${zone} is not eligible for the WAF ` +
          `migration${check.reason ? `: ${check.reason}` : " (the API gave no reason)"}.`,
        ...INELIGIBLE_ADVICE,
      ],
    };
  }
  if (state === "done") {
    return {
      eligible: false,
      lines: [`Zone ${zone} already uses the new WAF managed rules; the migration is done and cannot be run again.`],
    };
  }
  if (state === "validation") {
    return {
      eligible: true,
      lines: [
        `Zone ${zone} is in validation mode: the new and the previous WAF managed rules both run (the new one first).`,
        "Finish with: zoneform waf-migration start --mode pending (the previous WAF is then disabled).",
      ],
    };
  }
  return {
    eligible: true,
    lines: [
      `Zone ${zone} is eligible for the WAF migration (migration_state: ${state}).`,
      "Next: zoneform waf-migration config (review the proposed configuration), then start --mode " +
        "validation (Enterprise) or --mode pending.",
    ],
  };
}

/** Why `start --mode <mode>` must be refused before anything is written, or undefined. */
export function startRefusal(
  zone: string,
  check: MigrationCheck,
  mode: MigrationMode,
  plan: string | undefined,
): string | undefined {
  if (!check.compatible) {
    return `${explainCheck(zone, check).lines.join(" ")} Nothing was changed.`;
  }
  if (check.migration_state === "done") {
    return `zone ${zone} already uses the new WAF managed rules; nothing to migrate.`;
  }
  if (mode === "validation" && check.migration_state === "validation") {
    return `zone ${zone} is already in validation mode; finish with --mode pending. Nothing was changed.`;
  }
  if (mode === "validation" && plan !== undefined && plan !== "enterprise") {
    return (
      `validation mode (both WAFs side by side) is only available to Enterprise zones; zone ${zone} is ` +
      `on the ${plan} plan. Use --mode pending. Nothing was changed.`
    );
  }
  return undefined;
}

/** What a start does, in words, before it is confirmed. */
export function describeStart(zone: string, mode: MigrationMode, fromValidation: boolean): string[] {
  const common = [
    "The new WAF managed rules (the configuration below) go into the zone's http_request_firewall_managed " +
      "entry point ruleset; the rules it already holds stay as they are (the write below).",
  ];
  if (mode === "validation") {
    return [
      `Start validation mode on ${zone}:`,
      ...common,
      "Both WAFs then run side by side: the new managed rules first, then the previous WAF, so you can " +
        "compare their events.",
      "Finish later with: zoneform waf-migration start --mode pending.",
      "This cannot be undone: the zone cannot go back to the previous WAF only.",
    ];
  }
  return [
    `Migrate ${zone} to the new WAF managed rules${fromValidation ? " (leaving validation mode)" : ""}:`,
    ...common,
    "The previous WAF managed rules are disabled as soon as the configuration is saved, and their APIs stop " +
      "working for this zone.",
    `From then on manage the WAF with the rulesets API (the zoneform \`${WAF_KEY}:\` section).`,
    "This cannot be undone: there is no way back to the previous WAF managed rules.",
  ];
}

/** `status` in words. */
export function explainStatus(zone: string, status: MigrationStatus): string[] {
  const state = status.migration_state ?? "(not reported)";
  const lines = [
    `Zone ${zone}: migration_state ${state}`,
    `  previous WAF managed rules: ${status.old_waf_status ?? "(not reported)"}`,
    `  new WAF managed rules:      ${status.new_waf_status ?? "(not reported)"}`,
  ];
  if (status.created)
    lines.push(`  migration started:          ${status.created}${status.source ? ` (via ${status.source})` : ""}`);
  const oldOn = status.old_waf_status === "enabled";
  const newOn = status.new_waf_status === "enabled";
  if (oldOn && newOn)
    lines.push("Both WAFs run (validation mode). Finish with: zoneform waf-migration start --mode pending.");
  else if (newOn) lines.push("Only the new WAF managed rules run: the migration is done.");
  else if (oldOn) lines.push("Only the previous WAF managed rules run: the zone has not been migrated.");
  return lines;
}
