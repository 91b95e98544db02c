// The spec's mapping from the previous WAF's OWASP settings to the new WAF's.

type OldSensitivity = "high" | "medium" | "low" | "default";

const SENSITIVITY_MAPPING: Readonly<Record<OldSensitivity, { paranoia_level: number; score_threshold: number }>> = {
  high: { paranoia_level: 2, score_threshold: 40 },
  medium: { paranoia_level: 1, score_threshold: 25 },
  low: { paranoia_level: 1, score_threshold: 40 },
  default: { paranoia_level: 2, score_threshold: 40 },
};

const LABEL: Record<OldSensitivity, string> = { high: "High", medium: "Medium", low: "Low", default: "Default" };

export function oldSensitivitiesFor(paranoiaLevel: number, scoreThreshold: number): string[] {
  return (Object.keys(SENSITIVITY_MAPPING) as OldSensitivity[])
    .filter(
      (s) =>
        SENSITIVITY_MAPPING[s].paranoia_level === paranoiaLevel &&
        SENSITIVITY_MAPPING[s].score_threshold === scoreThreshold,
    )
    .map((s) => LABEL[s]);
}

export function oldActionFor(action: string): string | undefined {
  if (action === "log") return "Simulate";
  if (action === "block") return "Block";
  if (action === "managed_challenge" || action === "challenge" || action === "js_challenge") return "Challenge";
  return undefined;
}

/** The spec's table as lines, for `waf-migration config`. */
export function sensitivityTableLines(): string[] {
  return (Object.keys(SENSITIVITY_MAPPING) as OldSensitivity[]).map((s) => {
    const m = SENSITIVITY_MAPPING[s];
    return `${LABEL[s].padEnd(8)} → paranoia level ${m.paranoia_level}, score threshold ${m.score_threshold}`;
  });
}
