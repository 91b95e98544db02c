// Logpush destinations: schemes, ownership challenges, simulated broken ones.
// Spec: docs/emulator.md, Rulesets, Logpush and the WAF migration.
import { ownershipToken } from "./ownership.js";
import { ApiFault } from "../../types.js";

const DESTINATION_SCHEMES = ["r2", "gs", "s3", "sumo", "https", "azure", "splunk", "datadog"] as const;
/** Storage destinations prove ownership with a token written into the bucket. */
const OWNERSHIP_SCHEMES = ["s3", "gs", "azure"] as const;
const MAX_DESTINATION_LENGTH = 4096;
const UNREACHABLE_PREFIX = "invalid-";

/** Codes for logpush errors (≥ 1000 as the schema requires; the real ones are not documented). */
export const LOGPUSH_CODE = { invalid: 1004, destination: 1002, ownership: 1003, notFound: 1000 } as const;

export interface Destination {
  scheme: string;
  /** Bucket, container or host. */
  target: string;
  /** Path after the target, without query string. */
  path: string;
}

export function parseDestination(conf: unknown): Destination | string {
  if (typeof conf !== "string" || conf === "") return "destination_conf is required";
  if (conf.length > MAX_DESTINATION_LENGTH)
    return `destination_conf is longer than ${MAX_DESTINATION_LENGTH} characters`;
  const match = /^([a-z0-9]+):\/\/([^/?#]*)([^?#]*)/.exec(conf);
  if (!match) return "destination_conf must be a URL like s3://bucket/path?region=us-east-1";
  const [, scheme = "", target = "", path = ""] = match;
  if (!(DESTINATION_SCHEMES as readonly string[]).includes(scheme)) {
    return `destination scheme ${scheme} is not supported; use one of ${DESTINATION_SCHEMES.join(", ")}`;
  }
  if (target === "") return `destination_conf has no ${scheme === "https" ? "host" : "bucket"}`;
  return { scheme, target, path };
}

/** Why the emulator cannot write there, or undefined when it can. */
export function checkReachable(dest: Destination): string | undefined {
  return dest.target.startsWith(UNREACHABLE_PREFIX)
    ? `destination ${dest.scheme}://${dest.target} could not be reached or written to (access denied or not found)`
    : undefined;
}

export function needsOwnership(dest: Destination): boolean {
  return (OWNERSHIP_SCHEMES as readonly string[]).includes(dest.scheme);
}

export function requireDestination(conf: unknown): Destination {
  const dest = parseDestination(conf);
  if (typeof dest === "string") throw destinationFault(dest);
  const unreachable = checkReachable(dest);
  if (unreachable) throw destinationFault(unreachable);
  return dest;
}

/** Storage destinations need the token the ownership call wrote into the bucket. */
export function requireOwnership(zoneId: string, conf: string, dest: Destination, challenge: unknown): void {
  if (!needsOwnership(dest)) return;
  if (challenge === undefined || challenge === null || challenge === "") {
    throw new ApiFault(400, [
      {
        code: LOGPUSH_CODE.ownership,
        message:
          `ownership_challenge is required for ${dest.scheme} destinations: POST logpush/ownership ` +
          `with the destination_conf, then read the token from the file written into the bucket`,
      },
    ]);
  }
  if (challenge !== ownershipToken(zoneId, conf)) {
    throw new ApiFault(400, [
      {
        code: LOGPUSH_CODE.ownership,
        message: `ownership_challenge is not valid for destination ${dest.scheme}://${dest.target}${dest.path}`,
      },
    ]);
  }
}

/** Destination without its query string (where secrets live): how jobs are compared. */
export function stripQuery(conf: string): string {
  return conf.split("?")[0] ?? conf;
}

export function destinationFault(message: string): ApiFault {
  return new ApiFault(400, [{ code: LOGPUSH_CODE.destination, message }]);
}
