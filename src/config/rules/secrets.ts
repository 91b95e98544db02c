// Secrets come from the environment: a plan file stores `${env:NAME}` references, never values, so a
// credential written literally in the file would end up in plans, logs and version control.
import { isSecretParam, safeDecode } from "../../redact.js";
import { hasEnvReference } from "../interpolate.js";
import type { Finding } from "../problems.js";
import { asRecord, asString, itemsOf, zonesOf, type Rule } from "./util.js";

/** Names of the secret query parameters of a destination whose value holds no `${env:…}` reference. */
export function literalSecretParams(destination: string): string[] {
  const q = destination.indexOf("?");
  if (q < 0) return [];
  const names: string[] = [];
  for (const pair of destination.slice(q + 1).split("&")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const name = safeDecode(pair.slice(0, eq));
    const value = pair.slice(eq + 1);
    if (isSecretParam(name) && value !== "" && !hasEnvReference(value)) names.push(name);
  }
  return names;
}

export const secretsFromEnvironment: Rule = (doc, ctx) => {
  const findings: Finding[] = [];
  for (const { zone, pointer } of zonesOf(doc)) {
    for (const { item: job, pointer: jobPointer } of itemsOf(asRecord(zone.logs)?.logpush_jobs, `${pointer}/logs/logpush_jobs`)) {
      const destPointer = `${jobPointer}/destination_conf`;
      const written = ctx.template(destPointer) ?? asString(job.destination_conf);
      if (written !== undefined) {
        for (const name of literalSecretParams(written)) {
          findings.push({
            pointer: destPointer,
            message: `the credential '${name}' is written literally: use ${name}=\${env:NAME} so that it comes from the environment (plan files keep only the reference)`,
          });
        }
      }
      const challengePointer = `${jobPointer}/ownership_challenge`;
      const challenge = ctx.template(challengePointer) ?? asString(job.ownership_challenge);
      if (challenge !== undefined && !hasEnvReference(challenge)) {
        findings.push({
          pointer: challengePointer,
          message: "ownership_challenge is written literally: use ${env:NAME} so that it comes from the environment (plan files keep only the reference)",
        });
      }
    }
  }
  return findings;
};
