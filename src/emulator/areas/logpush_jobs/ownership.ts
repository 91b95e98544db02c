// The Logpush ownership challenge of the emulator: the token Cloudflare would write into a file in the
// destination bucket. Deterministic, so tests and the admin API (`GET /__emulator/ownership/…`) can
// know it without a bucket; credentials in the query string do not change it, the bucket and path do.
import { createHash } from "node:crypto";

/** Deterministic ownership token for a zone and a destination (query string ignored). */
export function ownershipToken(zoneId: string, destination: string): string {
  const base = destination.split("?")[0] ?? destination;
  return createHash("sha256").update(`${zoneId}\n${base}`).digest("hex");
}
