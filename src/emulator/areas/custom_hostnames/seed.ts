// The seed's custom hostnames.
// Spec: docs/emulator.md, The seed.
import { uuidFrom } from "../../ids.js";
import type { ZoneState } from "../../types.js";
import { seedSsl } from "./ssl.js";

const HOSTNAMES_PER_ZONE: Record<string, number> = {
  "example.com": 5,
  "example.net": 4,
  "example.org": 3,
  "example.dev": 3,
};

/**
 * Customer hostnames per zone: sub-domain, customer, DCV method, CA and whether the certificate is uploaded.
 */
const CUSTOMERS: Array<{ sub: string; customer: string; method: "http" | "txt"; ca: string; uploaded?: boolean }> = [
  { sub: "shop", customer: "acme", method: "http", ca: "lets_encrypt" },
  { sub: "app", customer: "globex", method: "txt", ca: "google" },
  { sub: "portal", customer: "initech", method: "http", ca: "digicert" },
  { sub: "api", customer: "umbrella", method: "txt", ca: "" },
  { sub: "secure", customer: "hooli", method: "http", ca: "digicert", uploaded: true },
];

export function seedHostnames(zone: ZoneState, now: number): void {
  zone.custom_hostnames = CUSTOMERS.slice(0, HOSTNAMES_PER_ZONE[zone.name] ?? 0).map((c, i) =>
    seedHostname(zone.name, c, i, now),
  );
}

function seedHostname(
  zoneName: string,
  c: (typeof CUSTOMERS)[number],
  index: number,
  now: number,
): Record<string, unknown> & { id: string } {
  const tld = zoneName.split(".").pop() ?? "com";
  const hostname = `${c.sub}.${c.customer}-${tld}.example`;
  // Created 30 to 58 days ago: their certificates (a year long) are current.
  const created = new Date(now - (30 + index * 7) * 86_400_000).toISOString();
  return {
    // UUIDs as the real ids, derived from the name to stay deterministic.
    id: uuidFrom(`custom-hostname:${hostname}`),
    hostname,
    ssl: seedSsl(hostname, c.method, c.ca, c.uploaded === true, created),
    status: "active",
    created_at: created,
    ownership_verification: {
      type: "txt",
      name: `_cf-custom-hostname.${hostname}`,
      value: uuidFrom(`ownership:${hostname}`),
    },
    ownership_verification_http: {
      http_url: `http://${hostname}/.well-known/cf-custom-hostname-challenge/${uuidFrom(`challenge:${hostname}`)}`,
      http_body: uuidFrom(`ownership:${hostname}`),
    },
  };
}
