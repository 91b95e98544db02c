// The Logpush ownership challenge token.
import { createHash } from "node:crypto";

export function ownershipToken(zoneId: string, destination: string): string {
  const base = destination.split("?")[0] ?? destination;
  return createHash("sha256").update(`${zoneId}\n${base}`).digest("hex");
}
